import Foundation
import Testing
import CoreStore
import CoreStoreSQL
@testable import CoreStorePostgres

final class LoggedNote: CoreStoreObject {
    @Field.Stored("text") var text: String = ""
}

/// Each commit to a PostgreSQL store adds its summary to `corestore_commit_log` and forgets the
/// one that fell out of the last `SQLCommitLog.keptCommits`, by its sequence; every
/// `keptCommits`-th commit also sweeps anything older.
@Suite("PostgreSQL commit log", .serialized)
struct PostgresCommitLogTests {
    @Test func theLogKeepsTheLatestCommitsAndSweepsOlderOnes() throws {
        let url = try PostgresTestServer.requireURL()
        let schemaName = "commit_log_\(UInt32.random(in: 0...UInt32.max))"
        defer { try? PostgresStore(url: url, schemaName: schemaName).erase() }
        let stack = DataStack(CoreStoreSchema(modelVersion: "V1", entities: [Entity<LoggedNote>("LoggedNote")]))
        try stack.addStorageAndWait(PostgresStore(url: url, schemaName: schemaName))
        let raw = try PostgresConnection(connectionString: url, location: "test")
        let log = "\(schemaName.sqlIdentifier).\(SQLCommitLog.table.sqlIdentifier)"
        func summaries() throws -> (count: Int64, lowest: Int64, highest: Int64) {
            var result: (Int64, Int64, Int64) = (0, 0, 0)
            try raw.statement("SELECT count(*), coalesce(min(sequence), 0), coalesce(max(sequence), 0) FROM \(log)").query { row in
                result = (row.int64(0), row.int64(1), row.int64(2))
            }
            return result
        }
        func commit(times: Int) throws {
            for i in 0..<times {
                try stack.perform(synchronous: { t in t.create(Into<LoggedNote>()).text = "\(i)" })
            }
        }
        let kept = Int64(SQLCommitLog.keptCommits)
        try commit(times: Int(kept) + 10)
        var now = try summaries()
        #expect(now.count == kept)
        #expect(now.highest - now.lowest + 1 == kept)
        // A summary that escaped its removal stays until the next sweep, then goes.
        try raw.execute("INSERT INTO \(log) (sequence, changes) VALUES (3, NULL)")
        let sweep = 2 * kept
        try commit(times: Int(sweep - 1 - now.highest))
        now = try summaries()
        #expect(now.lowest == 3, "no sweep before sequence \(sweep)")
        #expect(now.count == kept + 1)
        try commit(times: 1)
        now = try summaries()
        #expect(now.highest == sweep)
        #expect(now.count == kept)
        #expect(now.lowest == sweep - kept + 1)
    }
}
