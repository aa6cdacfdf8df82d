import CoreStoreSQL
import CoreStoreStorage

/// What every commit writes besides its rows, in one statement: the new counters, the commit's
/// summary in the commit log (``SQLCommitLog``, forgetting the summary that fell out of it),
/// and the notification that tells listeners of the commit once it is committed.
///
/// One statement instead of four, and the transaction's last: it goes out with the `COMMIT`, in
/// the same round trip (a commit of one small change once made about eight round trips, and
/// each cost about as much as the change itself). Data-modifying `WITH`
/// clauses each run exactly once, on the statement's snapshot; they touch different rows (the
/// log entry removed is older than the one added), so they cannot see or undo one another.
enum PostgresCommitRecord {
    /// `$1` the next key and `$2` the sequence, as the metadata's text; `$3` the last sequence
    /// the log forgets; `$4` the notification channel (its payload is the sequence); `$5` the
    /// sequence and `$6` the encoded changes, for the log.
    static let sql = """
        WITH counters AS (
            \(PostgresMetadata.countersUpdateSQL)
        ), forgotten AS (
            DELETE FROM \(SQLCommitLog.table.sqlIdentifier) WHERE sequence <= $3
        ), notified AS (
            SELECT pg_notify($4, $2)
        )
        INSERT INTO \(SQLCommitLog.table.sqlIdentifier) (sequence, changes) SELECT $5, $6 FROM notified
        """

    /// Records the commit `info`, which leaves the counters at `counters`, inside the commit's
    /// transaction on `connection`; listeners of `channel` hear of it when it commits.
    static func record(_ info: CommitInfo, counters: CommitCounters, channel: String, on connection: PostgresConnection) throws {
        let summary = CommitSummary(info)
        let sequence = Int64(clamping: info.sequence)
        let forgottenThrough = info.sequence > SQLCommitLog.keptCommits ? Int64(clamping: info.sequence - SQLCommitLog.keptCommits) : 0
        // The transaction's last statement: it travels with the COMMIT.
        try connection.statement(sql).executeWithCommit([
            .text(String(counters.nextKey)), .text(String(counters.sequence)), .integer(forgottenThrough),
            .text(channel), .integer(sequence), summary.encodedChanges.map(SQLValue.text) ?? .null,
        ])
    }
}
