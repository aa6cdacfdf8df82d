/// W4's result while the raw subjects scan: the best `limit` rows offered so far by score
/// descending then id ascending, kept sorted (insertion into at most `limit` rows).
struct RawTopRows {
    /// How many rows are kept at most.
    let limit: Int
    /// The rows kept, best first.
    private(set) var rows: [BenchRow] = []

    init(limit: Int) {
        self.limit = max(0, limit)
        rows.reserveCapacity(self.limit + 1)
    }

    /// Whether a row with `score` and `id` would be kept: lets a scan skip decoding the rest
    /// of the rows that would not.
    func admits(score: Double, id: Int64) -> Bool {
        if rows.count < limit { return true }
        guard let last = rows.last else { return false }
        return Self.ranks(score: score, id: id, before: last)
    }

    /// Keeps `row` if it is among the best `limit` rows offered so far.
    mutating func offer(_ row: BenchRow) {
        guard admits(score: row.score, id: row.id) else { return }
        var low = 0, high = rows.count
        while low < high {
            let middle = (low + high) / 2
            if Self.ranks(score: rows[middle].score, id: rows[middle].id, before: row) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        rows.insert(row, at: low)
        if rows.count > limit { rows.removeLast() }
    }

    /// The W4 checksum: every row kept, weighted by its 1-based position.
    var checksum: Checksum {
        var checksum = Checksum()
        for (index, row) in rows.enumerated() {
            checksum.add(row, position: Int64(index + 1))
        }
        return checksum
    }

    private static func ranks(score: Double, id: Int64, before other: BenchRow) -> Bool {
        score > other.score || (score == other.score && id < other.id)
    }
}

/// W5's running totals while the raw subjects scan: the row count, the score sum, and the
/// count and score sum of each age (ages are `0..<100`).
struct RawAggregation {
    private var count = 0
    private var scoreSum = 0.0
    private var countByAge = [Int](repeating: 0, count: 100)
    private var scoreSumByAge = [Double](repeating: 0, count: 100)

    /// Counts one row.
    mutating func add(age: Int, score: Double) throws {
        guard countByAge.indices.contains(age) else {
            throw RawEngineError(message: "corrupt raw store: a row of age \(age)")
        }
        count += 1
        scoreSum += score
        countByAge[age] += 1
        scoreSumByAge[age] += score
    }

    /// The W5 checksum as ``BenchmarkSubject/aggregate()`` documents it: the count, the sum,
    /// then each non-empty age group in age order.
    var checksum: Checksum {
        var checksum = Checksum()
        checksum.add(Int64(count))
        checksum.add(Int64(scoreSum))
        for age in countByAge.indices where countByAge[age] > 0 {
            checksum.add(aggregateGroupChecksum(age: age, count: countByAge[age], scoreSum: scoreSumByAge[age]))
        }
        return checksum
    }
}

/// W15's counts while the raw key-value subjects scan their `age` index: entries come in age
/// order, so each age's entries are consecutive.
struct RawAgeCounts {
    /// (age, count) per age met, in order.
    private(set) var groups: [(age: Int, count: Int)] = []

    /// Counts one entry of `age`.
    mutating func add(age: Int) {
        if let last = groups.last, last.age == age {
            groups[groups.count - 1].count += 1
        } else {
            groups.append((age, 1))
        }
    }
}
