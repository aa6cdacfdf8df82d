import Foundation

/// One object of the benchmark entity, as plain values: what every subject stores and reads.
///
/// Scores are multiples of 1/1024 below 1,000 and dates are whole seconds, so every sum over
/// them is exact in a `Double` whatever order an engine adds them in: the subjects' checksums
/// can be compared for equality.
struct BenchRow: Sendable, Equatable {
    /// Indexed; unique in the data set.
    var id: Int64
    var name: String
    /// Indexed; 100 distinct values, so one value matches about 1% of the rows.
    var age: Int
    /// Not indexed.
    var score: Double
    var created: Date

    /// The rows `0..<count`, the same on every run.
    static func dataSet(count: Int, startingAt first: Int64 = 0) -> [BenchRow] {
        (0..<Int64(count)).map { row(id: first + $0) }
    }

    /// The row with identifier `id`: deterministic, scattered values.
    static func row(id: Int64) -> BenchRow {
        var mixer = UInt64(bitPattern: id) &+ 0x9E37_79B9_7F4A_7C15
        mixer = (mixer ^ (mixer >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixer = (mixer ^ (mixer >> 27)) &* 0x94D0_49BB_1331_11EB
        mixer ^= mixer >> 31
        return BenchRow(
            id: id,
            name: "person-\(mixer % 1_000_003)",
            age: Int((UInt64(bitPattern: id) &* 7919) % 100),
            score: Double((mixer >> 20) % 1_024_000) / 1024,
            created: Date(timeIntervalSince1970: 1_700_000_000 + Double(id))
        )
    }
}
