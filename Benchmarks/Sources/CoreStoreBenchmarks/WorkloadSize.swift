/// How big each workload is: the full size by default, a tenth with `--quick`.
struct WorkloadSize: Sendable {
    /// Rows inserted by W1 and present for W2–W8.
    var rows: Int
    /// Objects updated by W6, deleted by W7, and single-object transactions in W9.
    var batch: Int
    /// Updates timed one by one on the monitored list (W8).
    var monitoredUpdates: Int
    /// Rows W4 returns at most.
    var limit = 100

    static let full = WorkloadSize(rows: 100_000, batch: 10_000, monitoredUpdates: 50)
    static let quick = WorkloadSize(rows: 10_000, batch: 1_000, monitoredUpdates: 10)

    /// The ages below which W14 reads (the `age` index; about a tenth of the rows).
    var concurrentMaxAge: Int { 10 }
    /// About how many rows each W14 fetch returns.
    var concurrentRows: Int { rows / 10 }
    /// The fetches each W14 reader makes.
    var concurrentFetches: Int { rows >= 100_000 ? 100 : 10 }

    /// The identifiers W6 updates: a contiguous block a quarter of the way in.
    var updatedIDs: Range<Int64> { Int64(rows / 4)..<Int64(rows / 4 + batch) }
    /// The identifiers W7 deletes: a contiguous block half way in (disjoint from W6's).
    var deletedIDs: Range<Int64> { Int64(rows / 2)..<Int64(rows / 2 + batch) }
    /// The age W3 looks for (about 1% of the rows).
    var queriedAge: Int { 42 }
    /// The score range W4 filters (unindexed), sorted by score descending then id.
    var scoreRange: ClosedRange<Double> { 250...750 }
    /// The rows W9 inserts one transaction each: new identifiers after the data set.
    var singleInsertRows: [BenchRow] { BenchRow.dataSet(count: batch, startingAt: Int64(rows) * 2) }
    /// The new rows W10 inserts: identifiers after W9's.
    var batchInsertRows: [BenchRow] { BenchRow.dataSet(count: batch, startingAt: Int64(rows) * 3) }
    /// The sources W11 imports, in this order: every other one has the identifier of a stored
    /// row that no earlier workload changed (ids `0..<batch/2`, with a new name and score + 1),
    /// the others are new (ids from `rows * 4`).
    var importRows: [BenchRow] {
        (0..<Int64(batch)).map { k in
            if k % 2 == 0 {
                var row = BenchRow.row(id: k / 2)
                row.name = "imported-\(row.id)"
                row.score += 1
                return row
            }
            return BenchRow.row(id: Int64(rows) * 4 + k / 2)
        }
    }
}
