import Foundation
import Testing
import CoreStore
@testable import CoreStorePostgres

/// What a stack does when the server drops every connection of its store (a restart, a
/// failover, an administrator): at most one commit and one fetch fail, with a clear error; then
/// the store reconnects, and a second stack hears about later commits again.
@Suite("PostgresStore after the server dropped its connections", .serialized)
struct PostgresReconnectionTests {
    /// Ends every server process serving the store `schemaName` (its connections carry
    /// `application_name` `corestore:<schema>`); returns how many there were.
    static func dropConnections(url: String, schemaName: String) throws -> Int {
        let admin = try PostgresConnection(connectionString: url, location: "test")
        var dropped = 0
        try admin.statement("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1")
            .query([.text("corestore:\(schemaName)")]) { row in if row.text(0) == "t" { dropped += 1 } }
        return dropped
    }

    /// Runs `body` up to three times; every failure must be a `CoreStoreError`. Returns the
    /// number of failures.
    static func failuresBeforeSuccess(_ body: () throws -> Void) -> Int {
        var failures = 0
        for _ in 0..<3 {
            do {
                try body()
                return failures
            } catch {
                #expect(error is CoreStoreError, "\(error)")
                failures += 1
            }
        }
        return failures
    }

    static func insert(_ stack: DataStack, _ title: String) throws {
        try stack.perform(synchronous: { t in t.create(Into<SharedNote>()).title = title })
    }

    @Test func commitsFetchesAndNotificationsResumeAfterTheServerDroppedTheConnections() throws {
        let url = try PostgresTestServer.requireURL()
        let schemaName = "reconnect_\(UInt32.random(in: 0...UInt32.max))"
        defer { try? PostgresStore(url: url, schemaName: schemaName).erase() }
        let writer = DataStack(PostgresSharedStackTests.schema)
        try writer.addStorageAndWait(PostgresStore(url: url, schemaName: schemaName))
        let reader = DataStack(PostgresSharedStackTests.schema)
        try reader.addStorageAndWait(PostgresStore(url: try PostgresSharedStackTests.keyValueForm(url), schemaName: schemaName))
        let list = try reader.monitorList(From<SharedNote>().orderBy(.ascending(\.$title)), deliveryQueue: DispatchQueue(label: "test.deliveries"))
        try Self.insert(writer, "a")
        #expect(PostgresSharedStackTests.eventually { list.numberOfObjects() == 1 })

        // Both stores' writers, readers and listeners.
        #expect(try Self.dropConnections(url: url, schemaName: schemaName) >= 3)

        #expect(Self.failuresBeforeSuccess { try Self.insert(writer, "b") } <= 1)
        var count = 0
        #expect(Self.failuresBeforeSuccess { count = try writer.fetchCount(From<SharedNote>()) } <= 1)
        #expect(count == 2)
        // The reader's listener reconnected and catches up: the monitor shows both commits.
        #expect(PostgresSharedStackTests.eventually { list.numberOfObjects() == 2 })
        try Self.insert(writer, "c")
        #expect(PostgresSharedStackTests.eventually { list.numberOfObjects() == 3 })
        #expect(list.objectsInAllSections().map(\.title) == ["a", "b", "c"])
    }
}
