import Testing
import CoreStoreStorage

@Suite("Record key sets")
struct RecordKeySetTests {
    /// Random inserts, removals and lookups agree with a `Set` at every step, across growth and
    /// the backward shifts of removal, for dense keys, keys far apart and the extremes
    /// (`Int64.min` is the table's empty marker and is held beside it).
    @Test(arguments: zip([3, 5, 7] as [UInt64], [1, 1_000_003, Int64.max / 4_096] as [Int64]))
    func agreesWithASet(seed: UInt64, spread: Int64) {
        var keys = RecordKeySet()
        var reference = Set<Int64>()
        var random = seed
        let extremes: [Int64] = [Int64.min, Int64.min + 1, -1, 0, Int64.max]
        func next() -> UInt64 {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return random >> 20
        }
        for step in 0..<30_000 {
            let draw = next()
            let key = draw % 50 == 0 ? extremes[Int(draw / 50 % 5)] : Int64(draw % 3_000) &* spread
            switch next() % 5 {
            case 0, 1:
                let removed = keys.remove(key)
                #expect(removed == (reference.remove(key) != nil))
            case 2:
                #expect(keys.contains(key) == reference.contains(key))
            default:
                let inserted = keys.insert(key)
                #expect(inserted == reference.insert(key).inserted)
            }
            #expect(keys.count == reference.count)
            if step % 3_000 == 0 {
                #expect(Set(keys.keys) == reference)
            }
        }
        #expect(Set(keys.keys) == reference)
        for key in (0..<3_000 as Range<Int64>).map({ $0 &* spread }) + extremes where keys.contains(key) != reference.contains(key) {
            Issue.record("key \(key): contains \(keys.contains(key)), the set says \(reference.contains(key))")
        }
    }

    @Test func anEmptySetHoldsNothing() {
        var keys = RecordKeySet()
        #expect(keys.isEmpty)
        #expect(!keys.contains(0) && !keys.contains(Int64.min))
        let removedAny = keys.remove(0) || keys.remove(Int64.min)
        #expect(!removedAny)
        // Only the marker key: the table itself is still unallocated.
        let insertedFirst = keys.insert(Int64.min), insertedAgain = keys.insert(Int64.min)
        #expect(insertedFirst && !insertedAgain)
        #expect(keys.count == 1 && keys.contains(Int64.min) && !keys.contains(5))
        #expect(keys.keys == [Int64.min])
    }

    /// A run of consecutive keys, as a bulk delete lists them: all found, and removing every
    /// other one leaves exactly the rest.
    @Test func consecutiveKeys() {
        var keys = RecordKeySet(1...100_000 as ClosedRange<Int64>)
        #expect(keys.count == 100_000)
        var removed = 0
        for key in stride(from: 1, through: 100_000, by: 2) as StrideThrough<Int64> where keys.remove(key) { removed += 1 }
        #expect(removed == 50_000)
        #expect(keys.count == 50_000)
        var wrong = 0
        for key in 0...100_001 as ClosedRange<Int64> where keys.contains(key) != (key % 2 == 0 && key >= 2 && key <= 100_000) {
            wrong += 1
        }
        #expect(wrong == 0)
    }
}
