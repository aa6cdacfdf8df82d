import Foundation

/// One way of storing the benchmark entity: CoreStore on a backend, the raw engine, or GRDB.
///
/// A subject is created on an empty directory of its own and then runs the workloads in the
/// order of ``Workload/allCases``; the runner times each call. Every reading workload returns a
/// ``Checksum`` of what it read, which must equal every other subject's.
///
/// Rules that keep the comparison fair:
/// - Every field of every returned row is read (decoded into Swift values).
/// - Writes happen in one transaction per call, except W9 (one per row); durability is the
///   engine's "normal" level everywhere (see `scripts/bench.sh`).
/// - The raw subjects maintain the same two indexes (`id`, `age`) as CoreStore.
protocol BenchmarkSubject: AnyObject {
    /// W1: inserts `rows` in one transaction.
    func insert(_ rows: [BenchRow]) throws
    /// W2: reads every row with every field.
    func fetchAll() throws -> Checksum
    /// W3: the rows whose (indexed) `age` equals `age`, every field.
    func fetch(age: Int) throws -> Checksum
    /// W4: the first `limit` rows whose (unindexed) `score` lies in `range`, by score
    /// descending then id ascending, every field, position-weighted checksum.
    func fetchTopScores(in range: ClosedRange<Double>, limit: Int) throws -> Checksum
    /// W5: the number of rows, the sum of `score`, and per `age` the count and sum of `score`.
    /// Checksum: `add(count)`, `add(Int64(sum))`, then per group in age order
    /// `add(age * 1_000_003 + count * 7 + Int64(sum))`.
    func aggregate() throws -> Checksum
    /// W15: per `age` the number of rows, and the highest `id`, each from an index where the
    /// subject has one (CoreStore's `age` and `id` indexes; the raw key-value layouts' `age`
    /// index and row keys; SQL's `GROUP BY` and `max()`). Checksum: per group in age order
    /// `add(age * 1_000_003 + count * 7)`, then `add(highest id)` (`-1` over no rows).
    func countPerAgeAndHighestID() throws -> Checksum
    /// W6: for each id in `ids`, `score += 1` and `age = (age + 1) % 100`, in one transaction.
    func update(ids: Range<Int64>) throws
    /// W7: deletes the rows whose id is in `ids`, in one transaction.
    func delete(ids: Range<Int64>) throws
    /// W8: sets `score` of each `(id, score)` pair in its own transaction and returns, for each,
    /// the time from the start of the commit to the moment a list of all rows sorted by score
    /// would have been told (CoreStore: the `ListObserver` callback; raw engines: the commit
    /// returning, since they have no observation).
    func monitoredUpdates(_ updates: [(id: Int64, score: Double)]) throws -> [Duration]
    /// W9: inserts each row in its own transaction.
    func insertEach(_ rows: [BenchRow]) throws
    /// W11: in one transaction, for each row, updates the stored row with the same `id` to the
    /// row's values, or inserts the row when there is none (W10 is ``insert(_:)`` of as many
    /// new rows, its baseline).
    func importUnique(_ rows: [BenchRow]) throws
    /// W12 (`.w12`) and W13 (`.w13`): migrates the store to the next model version; returns
    /// `false` when the subject has no migrations (raw engines, GRDB, an in-memory store).
    func migrate(_ workload: Workload) throws -> Bool
    /// W14: `readers` threads each make `fetches` fetches of the rows with `age < maxAge` and
    /// read every field, while (with `withWriter`) another thread commits one-object updates
    /// until they are done; `nil` for subjects without it.
    func concurrentReads(readers: Int, fetches: Int, maxAge: Int, withWriter: Bool) throws -> ConcurrentReads?
}

/// What a W14 run did: rows read by all readers, and commits made beside them.
struct ConcurrentReads {
    var rowsRead: Int
    var commits: Int
}

extension BenchmarkSubject {
    /// No migrations.
    func migrate(_ workload: Workload) throws -> Bool { false }

    /// No concurrency workload.
    func concurrentReads(readers: Int, fetches: Int, maxAge: Int, withWriter: Bool) throws -> ConcurrentReads? { nil }
}

/// The W15 checksum from its groups (age, count) in age order and the highest id.
func countPerAgeChecksum(_ groups: [(age: Int, count: Int)], highestID: Int64?) -> Checksum {
    var checksum = Checksum()
    for group in groups { checksum.add(Int64(group.age) &* 1_000_003 &+ Int64(group.count) &* 7) }
    checksum.add(highestID ?? -1)
    return checksum
}

/// The per-group part of the W5 checksum, shared by every subject.
func aggregateGroupChecksum(age: Int, count: Int, scoreSum: Double) -> Int64 {
    Int64(age) &* 1_000_003 &+ Int64(count) &* 7 &+ Int64(scoreSum)
}
