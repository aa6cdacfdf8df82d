import Foundation
import Testing
import CoreStoreSQL
import CoreStoreStorage
import CPostgres
@testable import CoreStorePostgres

/// A transaction's `BEGIN` travels with its first statement, and a read-only transaction's
/// `COMMIT` is read back before the connection's next command: the transactions still begin,
/// see their own snapshot, end, and report failures exactly as when each went out alone.
@Suite("PostgreSQL transactions in fewer round trips", .serialized)
struct PostgresTransactionRoundTripTests {
    /// A connection on a table of its own in a new schema; the schema is dropped by `cleanUp`.
    static func connection(_ name: String) throws -> (PostgresConnection, cleanUp: () -> Void) {
        let url = try PostgresTestServer.requireURL()
        let schema = "\(name)_\(UInt32.random(in: 0...UInt32.max))"
        let connection = try PostgresConnection(connectionString: url, location: "test")
        try connection.execute("CREATE SCHEMA \(schema); SET search_path TO \(schema); CREATE TABLE t (n BIGINT)")
        return (connection, { try? connection.execute("DROP SCHEMA \(schema) CASCADE") })
    }

    static func count(_ connection: PostgresConnection) throws -> Int64 {
        var count: Int64 = -1
        try connection.statement("SELECT count(*) FROM t").query { count = $0.int64(0) }
        return count
    }

    @Test func aReadOnlyTransactionEndsBeforeTheNextCommand() throws {
        let (reader, cleanUp) = try Self.connection("corestore_rt_snapshot")
        defer { cleanUp() }
        let writer = try PostgresConnection(connectionString: try PostgresTestServer.requireURL(), location: "test")
        try writer.execute("SET search_path TO \(try Self.searchPath(of: reader))")
        #expect(try reader.transaction("REPEATABLE READ READ ONLY") { try Self.count(reader) } == 0)
        try writer.transaction("READ COMMITTED") { try writer.statement("INSERT INTO t VALUES ($1)").execute([.integer(1)]) }
        // A snapshot still open would show no row.
        #expect(try reader.transaction("REPEATABLE READ READ ONLY") { try Self.count(reader) } == 1)
        #expect(!reader.isInTransaction)
        #expect(PQtransactionStatus(reader.handle) == PQTRANS_IDLE)
    }

    @Test func aTransactionThatRunsNothingOpensNone() throws {
        let (connection, cleanUp) = try Self.connection("corestore_rt_empty")
        defer { cleanUp() }
        let value = try connection.transaction("READ COMMITTED") {
            #expect(connection.isInTransaction)
            return 7
        }
        #expect(value == 7)
        #expect(!connection.isInTransaction)
        #expect(PQtransactionStatus(connection.handle) == PQTRANS_IDLE)
    }

    @Test func aFailingFirstStatementRollsBackAndTheConnectionGoesOn() throws {
        let (connection, cleanUp) = try Self.connection("corestore_rt_failure")
        defer { cleanUp() }
        #expect {
            try connection.transaction("READ COMMITTED") {
                try connection.statement("INSERT INTO missing VALUES ($1)").execute([.integer(1)])
            }
        } throws: { error in
            guard case StorageError.engine(_, let message) = error else { return false }
            return message.contains("42P01")
        }
        #expect(!connection.isInTransaction)
        // A failure after the first statement undoes the first too.
        #expect(throws: StorageError.self) {
            try connection.transaction("READ COMMITTED") {
                try connection.statement("INSERT INTO t VALUES ($1)").execute([.integer(1)])
                try connection.statement("INSERT INTO t VALUES ($1)").execute([.text("not a number")])
            }
        }
        #expect(try Self.count(connection) == 0)
    }

    @Test func aBeginTheServerRefusesIsReported() throws {
        let (connection, cleanUp) = try Self.connection("corestore_rt_begin")
        defer { cleanUp() }
        #expect {
            try connection.transaction("NO SUCH LEVEL") { try Self.count(connection) }
        } throws: { error in
            guard case StorageError.engine(_, let message) = error else { return false }
            return message.contains("BEGIN ISOLATION LEVEL NO SUCH LEVEL")
        }
        #expect(!connection.isInTransaction)
        #expect(try connection.transaction("REPEATABLE READ READ ONLY") { try Self.count(connection) } == 0)
    }

    /// A statement whose result overflows a double, as an exact sum can: PostgreSQL fails it
    /// with 22003, the error ``PostgresConnection/abandonedAggregate(_:)`` recognizes.
    static func overflow(_ connection: PostgresConnection) throws {
        try connection.statement("SELECT $1::float8 * 10").query([.real(1e308)]) { _ in }
    }

    @Test func anAggregateAttemptLeavesItsTransactionUsable() throws {
        let (connection, cleanUp) = try Self.connection("corestore_rt_aggregate")
        defer { cleanUp() }
        try connection.statement("INSERT INTO t VALUES ($1)").execute([.integer(4)])
        let counts = try connection.transaction("REPEATABLE READ READ ONLY") {
            let first = try connection.attemptingAggregate { try Self.count(connection) }
            // Twice: a second savepoint of the same name, after the first one's release.
            let second = try connection.attemptingAggregate { try Self.count(connection) }
            return [first, second, try Self.count(connection)]
        }
        #expect(counts == [1, 1, 1])
        #expect(!connection.isInTransaction)
        #expect(PQtransactionStatus(connection.handle) == PQTRANS_IDLE)
    }

    @Test func anAbandonedAggregateGoesBackToItsSavepoint() throws {
        let (connection, cleanUp) = try Self.connection("corestore_rt_abandoned")
        defer { cleanUp() }
        let count = try connection.transaction("REPEATABLE READ READ ONLY") { () throws -> Int64 in
            // The first statement of the transaction: its BEGIN and savepoint go out with it.
            #expect {
                try connection.attemptingAggregate { try Self.overflow(connection) }
            } throws: { error in
                guard let error = error as? StorageError else { return false }
                return connection.abandonedAggregate(error)
            }
            // The fallback runs in the same transaction, which the failure did not abort.
            #expect(connection.isInTransaction)
            #expect(PQtransactionStatus(connection.handle) == PQTRANS_INTRANS)
            return try Self.count(connection)
        }
        #expect(count == 0)
        #expect(!connection.isInTransaction)
    }

    @Test func anAggregateThatSendsNothingOpensNoTransaction() throws {
        let (connection, cleanUp) = try Self.connection("corestore_rt_unsent")
        defer { cleanUp() }
        let value = try connection.transaction("REPEATABLE READ READ ONLY") {
            try connection.attemptingAggregate { 7 }
        }
        #expect(value == 7)
        #expect(PQtransactionStatus(connection.handle) == PQTRANS_IDLE)
        // A failure before any statement leaves nothing to roll back to either.
        #expect(throws: StorageError.self) {
            try connection.transaction("REPEATABLE READ READ ONLY") {
                try connection.attemptingAggregate { () throws -> Int in throw StorageError.invalidRequest("refused") }
            }
        }
        #expect(!connection.isInTransaction)
        #expect(try connection.transaction("REPEATABLE READ READ ONLY") { try Self.count(connection) } == 0)
    }

    @Test func anotherErrorInAnAggregateEndsTheTransaction() throws {
        let (connection, cleanUp) = try Self.connection("corestore_rt_aggregate_error")
        defer { cleanUp() }
        // The insert before the aggregate is rolled back with it.
        try Self.expectRolledBack(connection, failingWith: "42P01") {
            try connection.statement("INSERT INTO t VALUES ($1)").execute([.integer(1)])
            try connection.attemptingAggregate { try connection.statement("SELECT sum(n) FROM missing").query { _ in } }
        }
    }

    @Test func aStatementSentWithTheCommitIsCommittedWithIt() throws {
        let (connection, cleanUp) = try Self.connection("corestore_rt_with_commit")
        defer { cleanUp() }
        try connection.transaction("READ COMMITTED") {
            try connection.statement("INSERT INTO t VALUES ($1)").execute([.integer(1)])
            try connection.statement("INSERT INTO t VALUES ($1)").executeWithCommit([.integer(2)])
        }
        #expect(!connection.isInTransaction)
        #expect(PQtransactionStatus(connection.handle) == PQTRANS_IDLE)
        // Its BEGIN still pending: BEGIN, the statement and COMMIT in one round trip.
        try connection.transaction("READ COMMITTED") {
            try connection.statement("INSERT INTO t VALUES ($1)").executeWithCommit([.integer(3)])
        }
        var sum: Int64 = -1
        try connection.statement("SELECT sum(n)::bigint FROM t").query { sum = $0.int64(0) }
        #expect(sum == 6)
    }

    @Test func aStatementThatFailsWithTheCommitRollsBackTheTransaction() throws {
        let (connection, cleanUp) = try Self.connection("corestore_rt_with_commit_failure")
        defer { cleanUp() }
        try Self.expectRolledBack(connection, failingWith: "22P02") {
            try connection.statement("INSERT INTO t VALUES ($1)").execute([.integer(1)])
            try connection.statement("INSERT INTO t VALUES ($1)").executeWithCommit([.text("not a number")])
        }
    }

    /// Expects a `READ COMMITTED` transaction running `body` to fail with SQLSTATE `state`, and
    /// to leave the connection out of any transaction and the table as empty as it was.
    static func expectRolledBack(_ connection: PostgresConnection, failingWith state: String, _ body: () throws -> Void) throws {
        #expect {
            try connection.transaction("READ COMMITTED", body)
        } throws: { error in
            guard case StorageError.engine(_, let message) = error else { return false }
            return message.contains(state)
        }
        #expect(!connection.isInTransaction)
        #expect(try count(connection) == 0)
    }

    @Test func aStatementAfterOneDeferredToTheCommitRunsAfterIt() throws {
        let (connection, cleanUp) = try Self.connection("corestore_rt_with_commit_order")
        defer { cleanUp() }
        let seen = try connection.transaction("READ COMMITTED") { () throws -> Int64 in
            try connection.statement("INSERT INTO t VALUES ($1)").executeWithCommit([.integer(1)])
            // The deferred insert goes out first, so this count sees it.
            return try Self.count(connection)
        }
        #expect(seen == 1)
        #expect(try Self.count(connection) == 1)
    }

    /// The schema `connection`'s search path names.
    static func searchPath(of connection: PostgresConnection) throws -> String {
        var path = ""
        try connection.statement("SELECT current_schema()").query { path = $0.text(0) ?? "" }
        return path
    }
}
