import Foundation
import Testing
import CoreStoreSQL
@testable import CoreStorePostgres

/// A connection keeps at most 256 prepared statements and drops them all (`DEALLOCATE ALL`) to
/// make room; a statement someone still holds (a commit's writer keeps its own) is prepared
/// again when it next runs.
@Suite("PostgreSQL prepared statements past the cache's limit", .serialized)
struct PostgresStatementCacheTests {
    @Test func aStatementHeldPastADeallocationStillRuns() throws {
        let connection = try PostgresConnection(connectionString: try PostgresTestServer.requireURL(), location: "test")
        let held = try connection.statement("SELECT $1::bigint + 1")
        var answer: Int64 = 0
        try held.query([.integer(41)]) { answer = $0.int64(0) }
        #expect(answer == 42)
        // Enough other statements that the cache is emptied at least once.
        for i in 0..<300 {
            try connection.statement("SELECT \(i)::bigint").query([]) { _ in }
        }
        #expect(connection.deallocatedThrough > 0)
        answer = 0
        try held.query([.integer(99)]) { answer = $0.int64(0) }
        #expect(answer == 100)
        // Bound one by one, as the writer binds.
        held.reset()
        try held.bind(.integer(6), at: 1)
        try held.run()
        var count: Int64 = 0
        try connection.statement("SELECT count(*) FROM pg_prepared_statements").query([]) { count = $0.int64(0) }
        #expect(count <= 257)
    }
}
