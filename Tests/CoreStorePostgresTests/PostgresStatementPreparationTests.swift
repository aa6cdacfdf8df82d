import Foundation
import Testing
import CoreStoreSQL
import CoreStoreStorage
@testable import CoreStorePostgres

/// A statement is prepared on the server by its first run, whose `Parse` goes out in the same
/// round trip as its `Bind` and `Execute`; one the server refuses fails every run with its own
/// error, and leaves the connection usable.
@Suite("PostgreSQL statements prepared by their first run", .serialized)
struct PostgresStatementPreparationTests {
    /// The server-side statements of the connection whose text is `sql`.
    private func preparedCount(_ connection: PostgresConnection, of sql: String) throws -> Int64 {
        var count: Int64 = -1
        try connection.statement("SELECT count(*) FROM pg_prepared_statements WHERE statement = $1").query([.text(sql)]) { count = $0.int64(0) }
        return count
    }

    @Test func aStatementIsPreparedByItsFirstRun() throws {
        let connection = try PostgresConnection(connectionString: try PostgresTestServer.requireURL(), location: "test")
        let sql = "SELECT $1::bigint * 2"
        let statement = try connection.statement(sql)
        #expect(try preparedCount(connection, of: sql) == 0)
        var answer: Int64 = 0
        try statement.query([.integer(21)]) { answer = $0.int64(0) }
        #expect(answer == 42)
        #expect(try preparedCount(connection, of: sql) == 1)
        // Later runs use the prepared statement.
        try statement.query([.integer(50)]) { answer = $0.int64(0) }
        #expect(answer == 100)
        #expect(try preparedCount(connection, of: sql) == 1)
    }

    @Test func aStatementPreparedInsideATransactionGoesOutWithItsBegin() throws {
        let connection = try PostgresConnection(connectionString: try PostgresTestServer.requireURL(), location: "test")
        var answer: Int64 = 0
        try connection.transaction("REPEATABLE READ READ ONLY") {
            try connection.statement("SELECT $1::bigint + 3").query([.integer(4)]) { answer = $0.int64(0) }
        }
        #expect(answer == 7)
        #expect(!connection.isInTransaction)
    }

    @Test(arguments: ["SELEC $1::bigint", "SELECT $1::bigint FROM no_such_table_for_preparation"])
    func aStatementTheServerRefusesFailsEveryRun(_ sql: String) throws {
        let connection = try PostgresConnection(connectionString: try PostgresTestServer.requireURL(), location: "test")
        let statement = try connection.statement(sql)
        for _ in 0..<2 {
            do {
                try statement.query([.integer(1)]) { _ in }
                Issue.record("the server ran \(sql)")
            } catch let error as StorageError {
                guard case .engine(_, let message) = error else {
                    Issue.record("unexpected error \(error)")
                    continue
                }
                // The server's own reason, not a missing prepared statement on the second run.
                #expect(message.contains(sql.prefix(5)))
                #expect(!message.contains("does not exist") || sql.contains("no_such_table"))
                #expect(!message.contains("prepared statement"))
            }
        }
        // Inside a transaction the refusal rolls it back, and the connection goes on.
        #expect(throws: StorageError.self) {
            try connection.transaction("READ COMMITTED") {
                try statement.query([.integer(1)]) { _ in }
            }
        }
        #expect(!connection.isInTransaction)
        var answer: Int64 = 0
        try connection.statement("SELECT $1::bigint - 1").query([.integer(10)]) { answer = $0.int64(0) }
        #expect(answer == 9)
    }
}
