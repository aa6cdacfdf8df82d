import CoreStoreStorage

/// The `corestore_commit_log` table of a shared SQL store: the ``CommitSummary`` of each of its
/// latest commits (sequence → changed identifiers as text), written in the commit's own
/// transaction. Stacks that fell behind read it to catch up with only the records that changed
/// (`SharedAccessStorage.committedChanges(after:)`).
///
/// Only the last ``keptCommits`` commits are kept: each commit removes the one that fell out.
/// The store writes the log (PostgreSQL's writes it in the statement that stores the commit's
/// counters, see `PostgresCommitRecord`); this type names it and reads it.
package enum SQLCommitLog {
    package static let table = "corestore_commit_log"

    /// How many of the latest commits the log keeps. A stack further behind than this reads
    /// everything again.
    package static let keptCommits: UInt64 = 1_000

    /// Creates the table when it is missing (a store made before the log existed gets it on
    /// its next open).
    package static let creationSQL = "CREATE TABLE IF NOT EXISTS \(table.sqlIdentifier) (sequence BIGINT PRIMARY KEY, changes TEXT)"

    /// The summaries of the commits after `sequence`, in order; `nil` when the log no longer
    /// holds the commit right after it, or holds a summary it cannot read.
    package static func summaries<Connection: SQLConnection>(after sequence: UInt64, on connection: Connection, dialect: some SQLDialect) throws -> [CommitSummary]? {
        var summaries: [CommitSummary] = []
        var readable = true
        try connection.statement("SELECT sequence, changes FROM \(table.sqlIdentifier) WHERE sequence > \(dialect.placeholder(1)) ORDER BY sequence")
            .query([.integer(Int64(clamping: sequence))]) { row in
                guard readable, let logged = row.integer(0), logged > 0,
                      let summary = CommitSummary(sequence: UInt64(logged), encodedChanges: row.text(1)) else {
                    readable = false
                    return
                }
                summaries.append(summary)
            }
        guard readable, summaries.first.map({ $0.sequence == sequence + 1 }) ?? true else { return nil }
        return summaries
    }
}
