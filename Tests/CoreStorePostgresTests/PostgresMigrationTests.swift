import Foundation
import Testing
import CoreStore
@testable import CoreStorePostgres

/// Model version "V1" of the migration tests' notes.
enum MigratingNoteV1 {
    final class Note: CoreStoreObject {
        @Field.Stored("title") var title: String = ""
    }

    static let schema = CoreStoreSchema(modelVersion: "V1", entities: [Entity<Note>("Note")])
}

/// "V2": each note also keeps the length of its title, computed by a custom mapping.
enum MigratingNoteV2 {
    final class Note: CoreStoreObject {
        @Field.Stored("title") var title: String = ""
        @Field.Stored("length") var length: Int = 0
    }

    static let schema = CoreStoreSchema(modelVersion: "V2", entities: [Entity<Note>("Note")])
}

/// A second entity of the long-names case, in "V1" and in "V2".
final class LongNameV1: CoreStoreObject {
    @Field.Stored("title") var title: String = ""
}

final class LongNameV2: CoreStoreObject {
    @Field.Stored("title") var title: String = ""
    @Field.Stored("length") var length: Int = 0
}

/// Counts the calls of a migration's transformer, from any thread.
final class CallCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    var count: Int { lock.withLock { value } }
    func increment() { lock.withLock { value += 1 } }
}

/// Migrations of a store in PostgreSQL: one transaction per step, under a lock that keeps a
/// second migrator (another stack, another process) out until the first is done.
@Suite("Migrating a PostgreSQL store", .serialized)
struct PostgresMigrationTests {
    /// A new schema holding `count` "V1" notes; the stack that wrote them is gone.
    static func seededV1(url: String, count: Int) throws -> String {
        let schemaName = "migration_\(UInt32.random(in: 0...UInt32.max))"
        let stack = DataStack(MigratingNoteV1.schema)
        try stack.addStorageAndWait(PostgresStore(url: url, schemaName: schemaName))
        try stack.perform(synchronous: { t in
            for i in 0..<count {
                t.create(Into<MigratingNoteV1.Note>()).title = String(repeating: "x", count: i % 7 + 1)
            }
        })
        return schemaName
    }

    /// The step "V1" → "V2", counting the notes it transforms.
    static func toV2(counting calls: CallCounter) -> CustomSchemaMappingProvider {
        CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [
            .transformEntity(sourceEntity: "Note", destinationEntity: "Note") { source, createDestination in
                calls.increment()
                let destination = createDestination()
                let title = source["title"] as? String ?? ""
                destination["title"] = title
                destination["length"] = Int64(title.count)
            },
        ])
    }

    /// Adds `store` to `stack` through `async.addStorage`; whether it migrated.
    static func add(_ store: PostgresStore, to stack: DataStack) async throws -> Bool {
        try await finished(stack.async.addStorage(store))
    }

    /// Whether the addition that `stream` reports migrated, once it finished.
    static func finished(_ stream: AsyncThrowingStream<MigrationProgress<PostgresStore>, any Error>) async throws -> Bool {
        for try await progress in stream {
            if case .finished(_, let migrationRequired) = progress { return migrationRequired }
        }
        Issue.record("the addition's stream ended without .finished")
        return false
    }

    /// Waits (up to two minutes) until `condition` holds, without holding a thread of the
    /// concurrency pool, which other tests and this test's own tasks need meanwhile.
    static func eventually(_ condition: () throws -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            if try condition() { return true }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        return try condition()
    }

    /// Four stacks add a "V1" store at once, with a "V2" model. The test holds the store's
    /// counter rows (which a migration locks after the store's advisory lock) until a migration
    /// waits for them and (as far as the machine runs them at once) the other three wait behind
    /// it, so that one migration is under way while the others are planned or opening. One
    /// migrates; the others wait, find the store migrated and add it: the transformer runs once
    /// per record. (Which of them planned a migration too is up to timing; two of four did when
    /// this was written.)
    @Test func stacksThatStartAtOnceMigrateTheStoreOnce() async throws {
        let url = try PostgresTestServer.requireURL()
        let notes = 500
        let schemaName = try Self.seededV1(url: url, count: notes)
        defer { try? PostgresStore(url: url, schemaName: schemaName).erase() }
        let calls = CallCounter()
        let stacks = (0..<4).map { _ in DataStack(MigratingNoteV1.schema, MigratingNoteV2.schema) }

        let gate = try PostgresConnection(connectionString: url, location: "test")
        try gate.execute("BEGIN")
        try gate.execute("SELECT * FROM \(schemaName.sqlIdentifier).corestore_metadata FOR UPDATE")
        // Each addition starts on a dispatch queue as its stream is made, whether or not a task
        // reads the stream yet.
        let additions = stacks.map { stack in
            UncheckedSendableBox(stack.async.addStorage(
                PostgresStore(url: url, schemaName: schemaName, migrationMappingProviders: [Self.toV2(counting: calls)])
            ))
        }
        let added = try await withThrowingTaskGroup(of: Bool.self) { group in
            // How many of the store's connections wait for a lock (`rowsOnly`: for the rows).
            func waiting(rowsOnly: Bool) throws -> Int64 {
                var count: Int64 = 0
                // Statistics are read once per transaction unless the snapshot is cleared.
                try gate.execute("SELECT pg_stat_clear_snapshot()")
                let rows = rowsOnly ? " AND wait_event IN ('transactionid', 'tuple')" : ""
                try gate.statement("SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'\(rows)")
                    .query([.text("corestore:\(schemaName)")]) { count = $0.integer(0) ?? 0 }
                return count
            }
            // A migration holds the advisory lock and waits for the rows.
            #expect(try await Self.eventually { try waiting(rowsOnly: true) == 1 }, "no migration came to wait for the store's counter rows")
            // The others come to wait for the advisory lock (in their open, or their own
            // migration) as soon as the dispatch queues run them; under a loaded test run that
            // may take a while, and the outcome below must hold either way.
            let deadline = Date().addingTimeInterval(10)
            while try waiting(rowsOnly: false) < 4, Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
            try gate.execute("COMMIT")
            for addition in additions {
                group.addTask { try await Self.finished(addition.value) }
            }
            var results: [Bool] = []
            for try await migrated in group { results.append(migrated) }
            return results
        }

        #expect(added.count == 4)
        #expect(added.contains(true), "no stack migrated: \(added)")
        #expect(calls.count == notes, "the transformer ran \(calls.count) times for \(notes) notes: the store was migrated more than once")
        for stack in stacks {
            let migrated = try stack.fetchAll(From<MigratingNoteV2.Note>())
            #expect(migrated.count == notes)
            #expect(migrated.allSatisfy { $0.length == $0.title.count })
        }
        // They all write to the migrated store, and see each other's commits.
        try stacks[0].perform(synchronous: { t in
            let note = t.create(Into<MigratingNoteV2.Note>())
            note.title = "after"
            note.length = 5
        })
        #expect(try await Self.eventually { (try? stacks[3].fetchCount(From<MigratingNoteV2.Note>())) == notes + 1 })
    }

    @Test func aStackOfTheOldModelCannotWriteOnceAnotherMigratedTheStore() async throws {
        let url = try PostgresTestServer.requireURL()
        let schemaName = try Self.seededV1(url: url, count: 10)
        defer { try? PostgresStore(url: url, schemaName: schemaName).erase() }
        let old = DataStack(MigratingNoteV1.schema)
        try old.addStorageAndWait(PostgresStore(url: url, schemaName: schemaName))

        let new = DataStack(MigratingNoteV1.schema, MigratingNoteV2.schema)
        let calls = CallCounter()
        #expect(try await Self.add(PostgresStore(url: url, schemaName: schemaName, migrationMappingProviders: [Self.toV2(counting: calls)]), to: new))
        #expect(calls.count == 10)

        var failure: (any Error)?
        do {
            try old.perform(synchronous: { t in
                t.create(Into<MigratingNoteV1.Note>()).title = "stale"
            })
        } catch {
            failure = error
        }
        #expect(failure != nil, "a commit of the old model reached the migrated store")
        let error = try #require(failure as? CoreStoreError, "\(String(describing: failure))")
        #expect(error.description.contains("migrated to model version 'V2'"), "\(error.debugDescription)")
        #expect(!error.description.contains("stale"))
        #expect(try new.fetchCount(From<MigratingNoteV2.Note>()) == 10)
        #expect(try new.fetchCount(From<MigratingNoteV2.Note>().where(\.$title == "stale")) == 0)
    }

    @Test func aMigrationThatFailsLeavesTheStoreAtItsVersion() async throws {
        let url = try PostgresTestServer.requireURL()
        let schemaName = try Self.seededV1(url: url, count: 10)
        defer { try? PostgresStore(url: url, schemaName: schemaName).erase() }
        struct Refused: Error {}
        let refusing = CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [
            .transformEntity(sourceEntity: "Note", destinationEntity: "Note") { source, createDestination in
                let destination = createDestination()
                destination["title"] = source["title"]
                if (source["title"] as? String)?.count == 7 { throw Refused() }
            },
        ])
        let new = DataStack(MigratingNoteV1.schema, MigratingNoteV2.schema)
        await #expect(throws: (any Error).self) {
            _ = try await Self.add(PostgresStore(url: url, schemaName: schemaName, migrationMappingProviders: [refusing]), to: new)
        }
        // Nothing of the destination is left: a stack of the old model reads every note.
        let old = DataStack(MigratingNoteV1.schema)
        try old.addStorageAndWait(PostgresStore(url: url, schemaName: schemaName))
        #expect(try old.fetchCount(From<MigratingNoteV1.Note>()) == 10)
    }

    @Test func namesThePostgresLimitWouldMakeEqualAreRefusedClearly() async throws {
        let url = try PostgresTestServer.requireURL()
        // 60 bytes each, different only at the end: the store's own tables fit PostgreSQL's
        // 63 bytes, but not once the migration's prefix is in front of them.
        let stem = String(repeating: "N", count: 59)
        let v1 = CoreStoreSchema(modelVersion: "V1", entities: [
            Entity<MigratingNoteV1.Note>(stem + "A"), Entity<LongNameV1>(stem + "B"),
        ])
        let v2 = CoreStoreSchema(modelVersion: "V2", entities: [
            Entity<MigratingNoteV2.Note>(stem + "A"), Entity<LongNameV2>(stem + "B"),
        ])
        let schemaName = "migration_long_\(UInt32.random(in: 0...UInt32.max))"
        defer { try? PostgresStore(url: url, schemaName: schemaName).erase() }
        try DataStack(v1).addStorageAndWait(PostgresStore(url: url, schemaName: schemaName))

        let new = DataStack(v1, v2)
        let error = await #expect(throws: CoreStoreError.self) {
            _ = try await Self.add(PostgresStore(url: url, schemaName: schemaName), to: new)
        }
        #expect(error?.description.contains("keeps only the first 63 bytes of a name") == true, "\(String(describing: error))")
        // The store is still "V1".
        let old = DataStack(v1)
        try old.addStorageAndWait(PostgresStore(url: url, schemaName: schemaName))
        #expect(try old.fetchCount(From<MigratingNoteV1.Note>()) == 0)
    }

    @Test func migrationErrorsNameTheServerWithoutThePassword() throws {
        let store = PostgresStore(url: "postgres://app:secret@db.example:5433/shop", schemaName: "inventory")
        #expect(store.storeURL.absoluteString == "postgres://app@db.example:5433/shop#inventory")
        let keyValue = PostgresStore(host: "/run/postgresql", port: 5432, user: "app", password: "it's", database: "shop", schemaName: "inventory")
        #expect(!keyValue.storeURL.absoluteString.contains("it%27s") && !keyValue.storeURL.absoluteString.contains("password"), "\(keyValue.storeURL)")
        #expect(keyValue.storeURL.absoluteString.contains("/shop?host=/run/postgresql#inventory"), "\(keyValue.storeURL)")
    }
}

/// A value handed to a child task that only that task uses.
struct UncheckedSendableBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
