/// What a workload read, folded into two numbers: every subject must report the same checksum
/// for the same workload, or the run stops (a fast wrong answer is not a result).
struct Checksum: Sendable, Equatable, CustomStringConvertible {
    /// How many rows (or groups) the workload produced.
    var rows = 0
    /// A wrapping sum over every field read; position-weighted where order matters.
    var value: Int64 = 0

    /// Adds one row read in full; `position` (1-based) weights it when order matters.
    mutating func add(_ row: BenchRow, position: Int64 = 1) {
        add(id: row.id, name: row.name, age: row.age, score: row.score, created: row.created.timeIntervalSince1970, position: position)
    }

    /// Adds one row given field by field (saves building a `BenchRow`).
    mutating func add(id: Int64, name: String, age: Int, score: Double, created: Double, position: Int64 = 1) {
        rows += 1
        var field = id &+ Int64(name.utf8.count) &* 31 &+ Int64(age) &* 1_009
        field = field &+ Int64(score * 1024) &* 7 &+ Int64(created)
        value = value &+ field &* position
    }

    /// Adds a plain number (an aggregate, a group).
    mutating func add(_ number: Int64) {
        rows += 1
        value = value &+ number
    }

    var description: String { "\(rows) rows, \(value)" }
}
