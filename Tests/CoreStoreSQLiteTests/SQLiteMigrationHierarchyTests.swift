import Foundation
import CoreStoreSQL
import Testing
import CSQLite
import CoreStoreStorage
@testable import CoreStoreSQLite

/// Native steps that drop indexed columns, and attributes that move within an entity hierarchy
/// (whose entities share one table): done in place when every column has one source, copied
/// otherwise — with the same result either way.
@Suite("SQLite migration: indexes and hierarchies")
struct SQLiteMigrationHierarchyTests {
    typealias F = MigrationFixtures

    /// V1 with `name` declared by `Lion` alone: snakes lose it.
    static let lionsOnlyNamed = StoreSchema(modelVersion: "V4", schemaHash: "migration-v4", entities: hierarchy(snake: [F.attribute("length", .double)]))
    /// V1 with `name` declared by `Lion` and by `Snake`: two columns, `name` and `Snake.name`.
    static let separatelyNamed = StoreSchema(modelVersion: "V5", schemaHash: "migration-v5", entities: hierarchy(
        snake: [F.attribute("name", .string, optional: false, default: .string("")), F.attribute("length", .double)]
    ))

    static func hierarchy(snake: [AttributeDescription]) -> [EntityDescription] {
        F.v1.entities.map { entity in
            switch entity.name {
            case "Creature": return EntityDescription(name: "Creature", isAbstract: true, attributes: [], relationships: [F.zoo])
            case "Lion": return EntityDescription(name: "Lion", parentName: "Creature", attributes: entity.attributes, relationships: [F.zoo])
            case "Snake": return EntityDescription(name: "Snake", parentName: "Creature", attributes: snake, relationships: [F.zoo])
            default: return entity
            }
        }
    }

    /// Migrates a copy of `from` at `url` to `to`, natively (expecting `native` from
    /// `migrateNatively`) or by copying records.
    private func migrate(_ url: URL, from: StoreSchema, to: StoreSchema, natively: Bool, expectNative: Bool = true) throws {
        let mapping = try F.mapping(from, to)
        let migration = try SQLiteStore(fileURL: url).beginMigration(from: from, to: to)
        let migratedNatively = try natively && migration.migrateNatively(#require(mapping.lightweightStep))
        #expect(migratedNatively == (natively && expectNative))
        if !migratedNatively {
            try F.copy(migration, mapping, batchSize: 3)
        }
        try migration.finish(metadata: F.metadata(to), counters: migration.sourceCounters)
    }

    /// The number of rows of `entity` with a value in `column`.
    private func valuedRows(_ url: URL, column: String, entity: String) throws -> Int64 {
        let connection = try SQLiteConnection(path: url.path, flags: SQLITE_OPEN_READONLY, schema: F.v1)
        guard case .integer(let count) = try connection.scalar("SELECT count(*) FROM \"Creature\" WHERE \"_entity\" = ?1 AND \(column.sqlIdentifier) IS NOT NULL", [.text(entity)]) else { return -1 }
        return count
    }

    @Test func goingBackDropsIndexedAndUniqueColumnsLikeACopy() throws {
        let directory = try TemporaryDirectory()
        let native = directory.file("native.sqlite"), copied = directory.file("copied.sqlite"), fresh = directory.file("fresh.sqlite")
        try F.makeSourceStore(native)
        try FileManager.default.copyItem(at: native, to: copied)
        try migrate(native, from: F.v1, to: F.v2, natively: true)
        try migrate(native, from: F.v2, to: F.v1, natively: true)
        try migrate(copied, from: F.v1, to: F.v2, natively: false)
        try migrate(copied, from: F.v2, to: F.v1, natively: false)
        let store = SQLiteStore(fileURL: fresh)
        _ = try store.open(schema: F.v1)
        store.close()

        #expect(try F.readAll(native, F.v1) == F.readAll(copied, F.v1))
        #expect(try F.layout(native) == F.layout(copied))
        #expect(try F.layout(native) == F.layout(fresh), "no index or column of V2 is left")
    }

    @Test func anAttributeOneSubEntityLosesIsClearedInItsRows() throws {
        let directory = try TemporaryDirectory()
        let native = directory.file("native.sqlite"), copied = directory.file("copied.sqlite")
        try F.makeSourceStore(native)
        try FileManager.default.copyItem(at: native, to: copied)
        try migrate(native, from: F.v1, to: Self.lionsOnlyNamed, natively: true)
        try migrate(copied, from: F.v1, to: Self.lionsOnlyNamed, natively: false)

        #expect(try F.readAll(native, Self.lionsOnlyNamed) == F.readAll(copied, Self.lionsOnlyNamed))
        #expect(try F.layout(native) == F.layout(copied))
        #expect(try valuedRows(native, column: "name", entity: "Snake") == 0, "as a copy leaves them")
        #expect(try valuedRows(native, column: "name", entity: "Lion") == 3)
    }

    @Test func oneColumnSplitInTwoIsCopied() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        try F.makeSourceStore(url)
        let source = try F.readAll(url, F.v1)
        let mapping = try F.mapping(F.v1, Self.separatelyNamed)
        try migrate(url, from: F.v1, to: Self.separatelyNamed, natively: true, expectNative: false)

        let migrated = try F.readAll(url, Self.separatelyNamed)
        #expect(migrated == source.compactMap { F.convert($0, mapping) })
        #expect(migrated.first { $0.id.entity == "Snake" }?.attributes.first == .string("Kaa"))
        #expect(try valuedRows(url, column: "Snake.name", entity: "Snake") == 2)
    }

    @Test(arguments: [false, true])
    func abandoningWithARollbackJournalLeavesTheFileByteIdentical(native: Bool) throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let store = SQLiteStore(fileURL: url, journalMode: .rollback)
        _ = try store.open(schema: F.v1)
        _ = try store.write(ChangeSet(inserts: F.sourceRecords()))
        store.close()
        let before = try F.bytes(url)

        let migration = try store.beginMigration(from: F.v1, to: F.v2)
        let mapping = try F.mapping(F.v1, F.v2)
        if native {
            #expect(try migration.migrateNatively(#require(mapping.lightweightStep)))
        } else {
            try F.copy(migration, mapping, batchSize: 2)
        }
        migration.abandon()
        #expect(try F.bytes(url) == before)
        #expect(!FileManager.default.fileExists(atPath: url.path + "-journal"))
    }
}
