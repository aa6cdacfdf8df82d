import CoreStoreSQL
import CoreStoreStorage

/// What every commit writes besides its rows, in one statement: the new counters, the records
/// it added to and removed from each entity's count (``SQLRecordCounts``), the commit's summary
/// in the commit log (``SQLCommitLog``, forgetting the summary that fell out of it), and the
/// notification that tells listeners of the commit once it is committed.
///
/// One statement instead of four, and the transaction's last: it goes out with the `COMMIT`, in
/// the same round trip (a commit of one small change once made about eight round trips, and
/// each cost about as much as the change itself). Data-modifying `WITH`
/// clauses each run exactly once, on the statement's snapshot; they touch different rows (the
/// log entry removed is older than the one added), so they cannot see or undo one another.
///
/// The log forgets one summary per commit, by its exact sequence (``sql``): a `DELETE` of every
/// summary up to it walks the index entries of all the summaries deleted since the table was
/// last vacuumed, which made each commit slower than the one before (measured with `pgbench`,
/// 12,000 commits in a row: 0.64 ms a commit at first, 0.92 ms at the end; 0.55 ms throughout
/// by sequence). Every ``SQLCommitLog/keptCommits``-th commit also removes any summary older
/// than that (``sweepingSQL``), so that nothing a skipped removal left stays for long.
enum PostgresCommitRecord {
    /// `$1` the next key and `$2` the sequence, as the metadata's text; `$3` the sequence of the
    /// summary the log forgets; `$4` the notification channel (its payload is the sequence); `$5` the
    /// sequence and `$6` the encoded changes, for the log; `$7` the count deltas (a JSON object,
    /// entity → delta) and `$8` the sequence before this commit: the counts change, and take
    /// `$5` as their stamp, only when their stamp is `$8` (see ``SQLRecordCounts``).
    static let sql = statement(forgetting: "sequence = $3")

    /// ``sql``, forgetting every summary up to `$3`.
    static let sweepingSQL = statement(forgetting: "sequence <= $3")

    private static func statement(forgetting condition: String) -> String {
        let stamp = SQLRecordCounts.stampName.sqlLiteral
        return """
        WITH counters AS (
            \(PostgresMetadata.countersUpdateSQL)
        ), counted AS (
            UPDATE \(SQLRecordCounts.table.sqlIdentifier) c SET records = CASE WHEN c.entity = \(stamp) THEN $5 ELSE c.records + d.delta END
            FROM (SELECT key, value::bigint FROM json_each_text($7::json) UNION ALL SELECT \(stamp), 0) AS d (entity, delta)
            WHERE c.entity = d.entity AND EXISTS (SELECT FROM \(SQLRecordCounts.table.sqlIdentifier) s WHERE s.entity = \(stamp) AND s.records = $8)
        ), forgotten AS (
            DELETE FROM \(SQLCommitLog.table.sqlIdentifier) WHERE \(condition)
        ), notified AS (
            SELECT pg_notify($4, $2)
        )
        INSERT INTO \(SQLCommitLog.table.sqlIdentifier) (sequence, changes) SELECT $5, $6 FROM notified
        """
    }

    /// Records the commit `info`, which leaves the counters at `counters` and follows the commit
    /// of sequence `previous`, inside the commit's transaction on `connection`; listeners of
    /// `channel` hear of it when it commits.
    static func record(_ info: CommitInfo, counters: CommitCounters, after previous: UInt64, channel: String, on connection: PostgresConnection) throws {
        let summary = CommitSummary(info)
        let sequence = Int64(clamping: info.sequence)
        let forgotten = info.sequence > SQLCommitLog.keptCommits ? Int64(clamping: info.sequence - SQLCommitLog.keptCommits) : 0
        // The transaction's last statement: it travels with the COMMIT.
        let sweeps = forgotten > 0 && forgotten % Int64(SQLCommitLog.keptCommits) == 0
        try connection.statement(sweeps ? sweepingSQL : sql).executeWithCommit([
            .text(String(counters.nextKey)), .text(String(counters.sequence)), .integer(forgotten),
            .text(channel), .integer(sequence), summary.encodedChanges.map(SQLValue.text) ?? .null,
            .text(try SQLRecordCounts.json(RecordCountDeltas(counting: info.changes))), .integer(Int64(clamping: previous)),
        ])
    }
}
