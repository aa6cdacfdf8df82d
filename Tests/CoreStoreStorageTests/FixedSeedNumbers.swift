/// Numbers from a fixed seed (a 64-bit linear congruential generator), so that a test's
/// generated data is the same on every run.
struct FixedSeedNumbers {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// The next number in `0..<bound`.
    mutating func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }

    /// The keys `1...count`, shuffled.
    mutating func shuffledKeys(_ count: Int64) -> [Int64] {
        var keys = Array(Int64(1)...count)
        for i in keys.indices.reversed() { keys.swapAt(i, next(i + 1)) }
        return keys
    }
}
