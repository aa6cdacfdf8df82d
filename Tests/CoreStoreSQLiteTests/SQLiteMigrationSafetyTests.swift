import Foundation
import Testing
import CoreStoreStorage
@testable import CoreStoreSQLite

/// Until `finish` commits, a migration never changes what the file holds: abandoned, failed,
/// dropped or killed, the store opens as the source version.
@Suite("SQLite migration: the source survives")
struct SQLiteMigrationSafetyTests {
    typealias F = MigrationFixtures

    @Test func beginningChecksTheStoredVersionAndThatTheStoreIsClosed() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        #expect(throws: StorageError.self) { try SQLiteStore(fileURL: url).beginMigration(from: F.v1, to: F.v2) }
        #expect(!FileManager.default.fileExists(atPath: url.path), "a missing store is not created")
        try F.makeSourceStore(url)
        #expect {
            try SQLiteStore(fileURL: url).beginMigration(from: F.v2, to: F.v3)
        } throws: { error in
            guard case StorageError.incompatibleStore = error else { return false }
            return true
        }
        let open = SQLiteStore(fileURL: url)
        _ = try open.open(schema: F.v1)
        #expect(throws: StorageError.self) { try open.beginMigration(from: F.v1, to: F.v2) }
        open.close()
    }

    @Test(arguments: [false, true])
    func abandoningLeavesTheFileByteIdentical(native: Bool) throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        try F.makeSourceStore(url)
        let before = try F.bytes(url)
        let source = try F.readAll(url, F.v1)
        #expect(try F.bytes(url) == before, "reading changes nothing")

        let migration = try SQLiteStore(fileURL: url).beginMigration(from: F.v1, to: F.v2)
        let mapping = try F.mapping(F.v1, F.v2)
        if native {
            #expect(try migration.migrateNatively(#require(mapping.lightweightStep)))
        } else {
            try F.copy(migration, mapping, batchSize: 2)
        }
        migration.abandon()
        migration.abandon()
        #expect(throws: StorageError.self) { try migration.finish(metadata: F.metadata(F.v2), counters: migration.sourceCounters) }
        #expect(throws: StorageError.self) { try migration.readSource { _ in } }

        #expect(try F.bytes(url) == before)
        #expect(try F.readAll(url, F.v1) == source)
    }

    @Test(arguments: [false, true])
    func aViolatedUniqueConstraintThrowsAndKeepsTheSource(native: Bool) throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        try F.makeSourceStore(url, duplicateEmails: true)
        let before = try F.bytes(url)
        let source = try F.readAll(url, F.v1)
        let migration = try SQLiteStore(fileURL: url).beginMigration(from: F.v1, to: F.v2)
        let mapping = try F.mapping(F.v1, F.v2)
        let violation = StorageError.uniqueConstraintViolation(entity: "Account", attributes: ["email"], values: [.string("a@example.com")])
        if native {
            #expect(throws: violation) { try migration.migrateNatively(#require(mapping.lightweightStep)) }
            migration.abandon()
        } else {
            try F.copy(migration, mapping, batchSize: 4)
            #expect(throws: violation) { try migration.finish(metadata: F.metadata(F.v2), counters: migration.sourceCounters) }
            migration.abandon()
        }
        #expect(try F.bytes(url) == before)
        #expect(try F.readAll(url, F.v1) == source)
    }

    @Test(arguments: [false, true])
    func aMigrationDroppedWithoutEndingOpensAsTheSource(native: Bool) throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        try F.makeSourceStore(url)
        let source = try F.readAll(url, F.v1)
        do {
            let migration = try SQLiteStore(fileURL: url).beginMigration(from: F.v1, to: F.v2)
            let mapping = try F.mapping(F.v1, F.v2)
            if native {
                #expect(try migration.migrateNatively(#require(mapping.lightweightStep)))
            } else {
                try F.copy(migration, mapping, batchSize: 2)
            }
        }
        #expect(try F.readAll(url, F.v1) == source)
        #expect(try F.layout(url).allSatisfy { !$0.contains(SQLiteMigration.destinationPrefix) })
    }

    /// A crash, for real: the files are copied while the migration's transaction is open and has
    /// spilled pages into the write-ahead log, then the copy is opened. The store's page cache
    /// (1 MiB) is smaller than the ~5 MB the copy writes, so SQLite must spill before the commit.
    @Test(arguments: [false, true])
    func aKilledMigrationOpensAsTheSource(native: Bool) throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let store = SQLiteStore(fileURL: url, pageCacheSize: 1 << 20)
        _ = try store.open(schema: F.v1)
        let padding = String(repeating: "x", count: 200)
        _ = try store.write(ChangeSet(inserts: (1...20_000).map { i in
            Record(id: RecordID(entity: "Account", key: Int64(-i)), attributes: [.string("\(i)@example.com"), .string(padding)], relationships: [])
        }))
        store.close()
        let source = try F.readAll(url, F.v1)

        let migration = try store.beginMigration(from: F.v1, to: F.v2)
        let mapping = try F.mapping(F.v1, F.v2)
        if native {
            #expect(try migration.migrateNatively(#require(mapping.lightweightStep)))
        } else {
            try F.copy(migration, mapping, batchSize: 1_000)
        }
        let crashed = directory.file("crashed.sqlite")
        try FileManager.default.copyItem(at: url, to: crashed)
        let wal = URL(fileURLWithPath: url.path + "-wal")
        let walSize = (try? FileManager.default.attributesOfItem(atPath: wal.path)[.size] as? Int) ?? 0
        if !native { #expect(walSize > 1_000_000, "the uncommitted copy spilled into the log") }
        if FileManager.default.fileExists(atPath: wal.path) {
            try FileManager.default.copyItem(at: wal, to: URL(fileURLWithPath: crashed.path + "-wal"))
        }
        migration.abandon()

        #expect(try F.readAll(crashed, F.v1) == source)
        #expect(try F.readAll(url, F.v1) == source)
    }
}
