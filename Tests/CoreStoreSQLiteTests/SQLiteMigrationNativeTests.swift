import Foundation
import Testing
import CoreStoreStorage
@testable import CoreStoreSQLite

/// `SQLiteMigration.migrateNatively`: a lightweight step done with `ALTER TABLE`, which must be
/// indistinguishable from copying the records.
@Suite("SQLite migration: native lightweight steps")
struct SQLiteMigrationNativeTests {
    typealias F = MigrationFixtures

    /// Two identical V1 files: the first migrated natively, the second by copying.
    private func migrateBothWays(_ directory: TemporaryDirectory) throws -> (native: URL, copied: URL) {
        let native = directory.file("native.sqlite"), copied = directory.file("copied.sqlite")
        try F.makeSourceStore(native)
        try FileManager.default.copyItem(at: native, to: copied)
        let mapping = try F.mapping(F.v1, F.v2)
        let step = try #require(mapping.lightweightStep)

        let nativeMigration = try SQLiteStore(fileURL: native).beginMigration(from: F.v1, to: F.v2)
        #expect(try nativeMigration.migrateNatively(step))
        try nativeMigration.finish(metadata: F.metadata(F.v2), counters: nativeMigration.sourceCounters)

        let copyMigration = try SQLiteStore(fileURL: copied).beginMigration(from: F.v1, to: F.v2)
        try F.copy(copyMigration, mapping, batchSize: 3)
        try copyMigration.finish(metadata: F.metadata(F.v2), counters: copyMigration.sourceCounters)
        return (native, copied)
    }

    @Test func aNativeStepReadsExactlyAsACopiedOne() throws {
        let directory = try TemporaryDirectory()
        let (native, copied) = try migrateBothWays(directory)
        let nativeRecords = try F.readAll(native, F.v2)
        let copiedRecords = try F.readAll(copied, F.v2)
        #expect(nativeRecords == copiedRecords)
        #expect(nativeRecords == F.sourceRecordsAfterV2())
        #expect(try F.layout(native) == F.layout(copied), "same columns, types and indexes")
        // `==` takes -0.0 for 0.0: check the sign SQLite gave back.
        for lion in nativeRecords where lion.id.entity == "Lion" {
            guard case .double(let weight) = lion.attributes[3] else { Issue.record("no weight"); continue }
            #expect(weight == 0 && weight.sign == .minus)
        }
    }

    @Test func theNativeResultQueriesAndWritesLikeANewStore() throws {
        let directory = try TemporaryDirectory()
        let (native, _) = try migrateBothWays(directory)
        let store = SQLiteStore(fileURL: native)
        #expect(try store.open(schema: F.v2)?.modelVersion == "V2")
        defer { store.close() }
        let snakes = try store.read { try $0.fetch(FetchRequest(entity: "Snake", predicate: .comparison(Comparison("length", .equal, .double(1))))).records }
        #expect(snakes.map(\.id.key) == [4], "the replaced null is stored, not only read")
        let zoos = try store.read { try $0.fetch(FetchRequest(entity: "Zoo", predicate: .comparison(Comparison("score", .equal, .int(5))))).records }
        #expect(zoos.map(\.id.key) == [1])
        #expect(throws: StorageError.uniqueConstraintViolation(entity: "Account", attributes: ["email"], values: [.string("a@example.com")])) {
            try store.write(ChangeSet(inserts: [Record(id: RecordID(entity: "Account", key: -1), attributes: [.string("a@example.com"), .null], relationships: [])]))
        }
        let lion = Record(id: RecordID(entity: "Lion", key: -1), attributes: [.string("Mufasa"), .bool(true), .double(3), .double(190)], relationships: [[]])
        _ = try store.write(ChangeSet(inserts: [lion]))
        #expect(try store.read { try $0.count(FetchRequest(entity: "Creature")) } == 6)
    }

    @Test func aStepTheTablesCannotTakeInPlaceFallsBackWithoutChangingAnything() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        try F.makeSourceStore(url)
        let mapping = try F.mapping(F.v1, F.v2)
        let step = try #require(mapping.lightweightStep)
        // `name` is one column for lions and snakes; here they would disagree on its source.
        var attributes = step.attributes
        attributes["Lion"]?[0] = .constant(.string("a lion"))
        let disagreeing = LightweightMigrationStep(source: step.source, destination: step.destination, attributes: attributes)

        let migration = try SQLiteStore(fileURL: url).beginMigration(from: F.v1, to: F.v2)
        #expect(try migration.migrateNatively(disagreeing) == false)
        let source = try migration.readSource { try F.allRecords($0, F.v1) }
        #expect(source.count == 10, "nothing was altered")
        try F.copy(migration, mapping, batchSize: 4)
        #expect(try migration.migrateNatively(step) == false, "records were copied already")
        try migration.finish(metadata: F.metadata(F.v2), counters: migration.sourceCounters)
        #expect(try F.readAll(url, F.v2) == F.sourceRecordsAfterV2())
    }

    @Test func swappedColumnNamesAreRenamedWithoutCollisions() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        try F.makeSourceStore(url)
        let swapped = StoreSchema(modelVersion: "V1s", schemaHash: "migration-v1-swapped", entities: F.v1.entities.map { entity in
            guard entity.name == "Account" else { return entity }
            return EntityDescription(name: "Account", attributes: [
                F.attribute("email", .string, indexed: true, renamedFrom: "handle"),
                F.attribute("handle", .string, renamedFrom: "email"),
            ])
        })
        let step = try #require(try F.mapping(F.v1, swapped).lightweightStep)
        let migration = try SQLiteStore(fileURL: url).beginMigration(from: F.v1, to: swapped)
        #expect(try migration.migrateNatively(step))
        let accounts = try migration.readDestination { try $0.fetch(FetchRequest(entity: "Account")).records }
        #expect(accounts.map(\.attributes) == [[.string("ann"), .string("a@example.com")], [.null, .null], [.string("bob"), .string("b@example.com")]])
        try migration.finish(metadata: F.metadata(swapped), counters: migration.sourceCounters)
        #expect(try F.readAll(url, swapped).filter { $0.id.entity == "Account" }.map(\.attributes) == accounts.map(\.attributes))
    }

    @Test func anAttributeAddedToManyRowsTakesTheNativePathAndReadsBackEverywhere() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let count = 20_000
        let store = SQLiteStore(fileURL: url, durability: .normal)
        _ = try store.open(schema: F.v1)
        let inserts = (1...count).map { i in
            Record(id: RecordID(entity: "Account", key: Int64(-i)), attributes: [.string("user\(i)@example.com"), .string("user\(i)")], relationships: [])
        }
        _ = try store.write(ChangeSet(inserts: inserts))
        store.close()

        let withScore = StoreSchema(modelVersion: "V1b", schemaHash: "migration-v1-score", entities: F.v1.entities.map { entity in
            guard entity.name == "Account" else { return entity }
            return EntityDescription(name: "Account", attributes: entity.attributes + [F.attribute("score", .integer, optional: false, default: .int(7))])
        })
        let step = try #require(try F.mapping(F.v1, withScore).lightweightStep)
        // How fast this is belongs to the benchmark (W12); here: the native path takes it.
        let migration = try store.beginMigration(from: F.v1, to: withScore)
        #expect(try migration.migrateNatively(step))
        try migration.finish(metadata: F.metadata(withScore), counters: migration.sourceCounters)

        let reopened = SQLiteStore(fileURL: url)
        _ = try reopened.open(schema: withScore)
        defer { reopened.close() }
        let scored = try reopened.read { try $0.count(FetchRequest(entity: "Account", predicate: .comparison(Comparison("score", .equal, .int(7))))) }
        #expect(scored == count)
    }
}

extension MigrationFixtures {
    /// ``sourceRecords(duplicateEmails:)`` as V2 holds them, with permanent keys.
    static func sourceRecordsAfterV2() -> [Record] {
        let extra: [String: [Value]] = [
            "Zoo": [.date(openedDefault), .uuid(codeDefault), .decimal(budgetDefault)],
            "Lion": [.double(2.5), .double(-0.0)],
        ]
        let records = sourceRecords().map { record -> Record in
            var r = Record(id: RecordID(entity: record.id.entity, key: -record.id.key), attributes: record.attributes,
                           relationships: record.relationships.map { $0.map { RecordID(entity: $0.entity, key: -$0.key) } })
            switch r.id.entity {
            case "Zoo": r.attributes = [r.attributes[0], r.attributes[2]] + extra["Zoo"]!
            case "Lion": r.attributes += extra["Lion"]!
            case "Snake": if r.attributes[1] == .null { r.attributes[1] = .double(1) }
            default: break
            }
            return r
        }
        let order = v2.entities.filter { !$0.isAbstract }.map(\.name)
        return order.flatMap { entity in records.filter { $0.id.entity == entity } }
    }
}
