import Foundation
import Testing
import CoreStoreStorage
@testable import CoreStoreSQLite

/// `SQLiteStore` as `MigratableStorage`, copying records: scan the source, write the
/// destination beside it, finish.
@Suite("SQLite migration: copying records")
struct SQLiteMigrationCopyTests {
    typealias F = MigrationFixtures

    @Test func theStoreTakesMappingProvidersInCoreStoresOrder() {
        let url = URL(fileURLWithPath: "/tmp/unused.sqlite")
        let store = SQLiteStore(fileURL: url, configuration: nil, migrationMappingProviders: [InferredSchemaMappingProvider()],
                                localStorageOptions: .recreateStoreOnModelMismatch, durability: .normal, journalMode: .wal)
        #expect(store.migrationMappingProviders.count == 1)
        #expect(SQLiteStore(fileURL: url).migrationMappingProviders.isEmpty)
        #expect(SQLiteStore(fileName: "x.sqlite", migrationMappingProviders: [InferredSchemaMappingProvider()]).migrationMappingProviders.count == 1)
    }

    @Test func scanningGivesWhatRecordsGivesInKeyOrderAndBatches() throws {
        let directory = try TemporaryDirectory()
        try F.makeSourceStore(directory.file())
        let migration = try SQLiteStore(fileURL: directory.file()).beginMigration(from: F.v1, to: F.v3)
        defer { migration.abandon() }
        #expect(migration.sourceMetadata.modelVersion == "V1")
        #expect(migration.sourceCounters.nextKey == 11)
        for entity in ["Zoo", "Lion", "Snake", "Account", "Creature"] {
            var batches: [[Record]] = []
            try migration.scanSource(entity: entity, batchSize: 2) { batches.append($0) }
            #expect(batches.allSatisfy { $0.count <= 2 && !$0.isEmpty })
            let scanned = batches.flatMap { $0 }
            let expected = try migration.readSource { reader in
                try reader.fetch(FetchRequest(entity: entity, includesSubentities: false)).records
            }
            #expect(scanned == expected)
            #expect(scanned.map(\.id.key) == scanned.map(\.id.key).sorted())
            let byID = try migration.readSource { try $0.records(scanned.map(\.id)) }
            #expect(byID.map { $0?.relationships } == scanned.map(\.relationships), "relationships included")
        }
        #expect(throws: StorageError.self) { try migration.scanSource(entity: "Nope", batchSize: 5) { _ in } }
    }

    @Test func copiedRecordsWithRenamedAndRemovedPropertiesOpenUnderTheDestination() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        try F.makeSourceStore(url)
        let source = try F.readAll(url, F.v1)
        let mapping = try F.mapping(F.v1, F.v3)
        #expect(mapping.lightweightStep == nil, "a renamed relationship and a removed entity need a copy")

        let store = SQLiteStore(fileURL: url)
        let migration = try store.beginMigration(from: F.v1, to: F.v3)
        try F.copy(migration, mapping, batchSize: 2)
        let written = try migration.readDestination { try F.allRecords($0, F.v3) }
        let expected = source.compactMap { F.convert($0, mapping) }
        #expect(written == expected)
        try migration.finish(metadata: F.metadata(F.v3), counters: migration.sourceCounters)
        #expect(throws: StorageError.self) { try store.read { _ in } }

        let migrated = try F.readAll(url, F.v3)
        #expect(migrated == expected)
        let zoo = try #require(migrated.first { $0.id.key == 1 })
        #expect(zoo.attributes == [.string("Central"), .int(5)])
        #expect(zoo.relationships[0].map(\.key) == [4, 3, 2], "ordered residents keep their order")
        #expect(Set(zoo.relationships[1].map(\.key)) == [2, 4], "picks are the former favorites")
        #expect(migrated.first { $0.id.key == 2 }?.attributes == [.string("Leo"), .bool(true), .double(2.5)])
        #expect(!migrated.contains { $0.id.entity == "Account" })

        // The store works on as V3: counters carried over, writes and reads.
        let reopened = SQLiteStore(fileURL: url)
        #expect(try reopened.open(schema: F.v3)?.modelVersion == "V3")
        let info = try reopened.write(ChangeSet(inserts: [Record(id: RecordID(entity: "Zoo", key: -1), attributes: [.string("New"), .null], relationships: [[], []])]))
        #expect(info.permanentIDs.values.first?.key == 11)
        #expect(try reopened.read { try $0.count(FetchRequest(entity: "Creature")) } == 5)
        reopened.close()
        #expect(try F.layout(url).allSatisfy { !$0.contains(SQLiteMigration.destinationPrefix) })
    }

    @Test func migratingTheSameStepTwiceFromCopiesGivesTheSameLayoutAsANewStore() throws {
        let directory = try TemporaryDirectory()
        let migratedURL = directory.file("migrated.sqlite")
        try F.makeSourceStore(migratedURL)
        let migration = try SQLiteStore(fileURL: migratedURL).beginMigration(from: F.v1, to: F.v3)
        try F.copy(migration, try F.mapping(F.v1, F.v3), batchSize: 100)
        try migration.finish(metadata: F.metadata(F.v3), counters: migration.sourceCounters)

        let freshURL = directory.file("fresh.sqlite")
        let fresh = SQLiteStore(fileURL: freshURL)
        _ = try fresh.open(schema: F.v3)
        fresh.close()
        #expect(try F.layout(migratedURL) == F.layout(freshURL))
    }

    @Test func anEmptySourceFinishesWithEmptyDestinationTables() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let store = SQLiteStore(fileURL: url)
        _ = try store.open(schema: F.v1)
        store.close()
        let migration = try store.beginMigration(from: F.v1, to: F.v3)
        try migration.finish(metadata: F.metadata(F.v3), counters: migration.sourceCounters)
        #expect(try F.readAll(url, F.v3).isEmpty)
    }
}
