import Foundation
import Testing
import CoreStoreKeyValue
import CoreStoreStorage

/// `KeyValueStorage`'s `MigratableStorage` conformance, on the in-memory engine, `LMDBStore`
/// and `LevelDBStore`: the destination written as the next generation of keys, one atomic
/// pointer write, garbage deleted at open.
@Suite("KeyValueStorage migrations")
struct KeyValueMigrationTests {
    private typealias M = MigrationModel

    /// A store seeded under A and closed; returns the pairs it holds.
    @discardableResult
    private func seededStore(_ site: MigrationSite) throws -> [Pair] {
        let storage = site.storage()
        #expect(try storage.open(schema: M.a) == nil)
        try M.seed(storage)
        storage.close()
        return try site.pairs()
    }

    /// The seeded records under A, read through a store opened with A.
    private func expectSeedUnderA(_ site: MigrationSite, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let storage = site.storage()
        defer { storage.close() }
        #expect(try storage.open(schema: M.a) == M.metadata(M.a), sourceLocation: sourceLocation)
        let people = try storage.read { try M.all($0, "Person") }
        #expect(people.map(\.id.key) == [1, 3, 5, 7, 9], sourceLocation: sourceLocation)
        #expect(people.allSatisfy { $0.attributes.count == 2 }, sourceLocation: sourceLocation)
        #expect(try storage.read { try M.all($0, "Pet") }.map(\.id.key) == [2, 4, 6, 8], sourceLocation: sourceLocation)
    }

    @Test(arguments: MigrationStoreKind.allCases)
    func aFinishedMigrationOpensAsTheDestinationAndTheOldGenerationIsGone(_ kind: MigrationStoreKind) throws {
        try withMigrationSite(kind) { site in
            try seededStore(site)
            let source = try site.storage().beginMigration(from: M.a, to: M.b)
            #expect(source.sourceMetadata == M.metadata(M.a))
            #expect(source.sourceCounters == CommitCounters(nextKey: 10, sequence: 1))
            #expect(try source.readSource { try M.all($0, "Person") }.count == 5)
            let batches = try M.copy(source)
            // Exactly the concrete entity, `batchSize` at a time.
            #expect(batches == ["Person": [2, 2, 1], "Pet": [2], "Dog": [2]])
            #expect(try source.readDestination { try M.all($0, "Person") }.map { $0.attributes[2] } == ["ann", "bob", "cy", "di", "ed"].map(Value.string))
            try source.finish(metadata: M.metadata(M.b), counters: source.sourceCounters)

            // Only the pointer and generation 1 are left.
            #expect(Set(try site.keys().map(generation(of:))) == [nil, 1])
            let storage = site.storage()
            defer { storage.close() }
            #expect(try storage.open(schema: M.b) == M.metadata(M.b))
            let people = try storage.read { try M.all($0, "Person") }
            #expect(people.map(\.id.key) == [1, 3, 5, 7, 9])
            #expect(people.map { $0.attributes[2] } == ["ann", "bob", "cy", "di", "ed"].map(Value.string))
            #expect(try storage.read { try M.all($0, "Pet") }.map(\.id.entity) == ["Pet", "Dog", "Dog", "Pet"])
        }
    }

    @Test(arguments: MigrationStoreKind.allCases)
    func aStoreAtALaterGenerationFetchesCountsAggregatesAndWrites(_ kind: MigrationStoreKind) throws {
        try withMigrationSite(kind) { site in
            try seededStore(site)
            let migration = try site.storage().beginMigration(from: M.a, to: M.b)
            try M.copy(migration)
            try migration.finish(metadata: M.metadata(M.b), counters: migration.sourceCounters)

            let storage = site.storage()
            defer { storage.close() }
            _ = try storage.open(schema: M.b)
            let thirty = FetchRequest(entity: "Person", predicate: .comparison(Comparison("age", .equal, .int(30))))
            #expect(try storage.read { try $0.fetch(thirty).records.map(\.id.key) } == [1, 7])
            let byNickname = FetchRequest(entity: "Person", predicate: .comparison(Comparison("nickname", .greaterOrEqual, .string("c"))),
                                          sortDescriptors: [RecordSortDescriptor(key: "nickname", ascending: false)])
            #expect(try storage.read { try $0.fetch(byNickname).records.map(\.id.key) } == [9, 7, 5])
            #expect(try storage.read { try $0.count(FetchRequest(entity: "Pet")) } == 4)
            #expect(try storage.read { try $0.count(FetchRequest(entity: "Dog", predicate: .comparison(Comparison("breed", .equal, .string("collie"))))) } == 1)
            let ages = AggregateRequest(entity: "Person", terms: [AggregateTerm(.value, "age"), AggregateTerm(.count, "name")],
                                        groupBy: ["age"], sortDescriptors: [RecordSortDescriptor(key: "age", ascending: true)])
            #expect(try storage.read { try $0.aggregate(ages, schema: M.b) } == [[.null, .int(1)], [.int(30), .int(2)], [.int(41), .int(1)], [.int(55), .int(1)]])

            // The counters came along: the next key follows the migrated ones.
            let info = try storage.write(ChangeSet(inserts: [
                Record(id: RecordID(entity: "Person", key: -1), attributes: [.string("Flo"), .int(30), .string("flo")], relationships: []),
            ]))
            #expect(info.sequence == 2 && info.permanentIDs.values.map(\.key) == [10])
            #expect(try storage.read { try $0.fetch(thirty).records.map(\.id.key) } == [1, 7, 10])
            #expect(throws: StorageError.uniqueConstraintViolation(entity: "Person", attributes: ["name"], values: [.string("Ann")])) {
                try storage.write(ChangeSet(inserts: [Record(id: RecordID(entity: "Person", key: -1), attributes: [.string("Ann"), .null, .null], relationships: [])]))
            }
            _ = try storage.write(ChangeSet(deletes: [RecordID(entity: "Person", key: 1)]))
            #expect(try storage.read { try $0.fetch(thirty).records.map(\.id.key) } == [7, 10])
            storage.close()
            #expect(Set(try site.keys().map(generation(of:))) == [nil, 1])
        }
    }

    @Test(arguments: MigrationStoreKind.allCases)
    func anAbandonedMigrationLeavesTheSourceAsItWas(_ kind: MigrationStoreKind) throws {
        try withMigrationSite(kind) { site in
            let before = try seededStore(site)
            let migration = try site.storage().beginMigration(from: M.a, to: M.b)
            try M.copy(migration)
            migration.abandon()
            migration.abandon()
            #expect(try site.pairs() == before)
            try expectSeedUnderA(site)
        }
    }

    @Test(arguments: MigrationStoreKind.allCases)
    func theGenerationACrashLeftIsDeletedAtTheNextOpen(_ kind: MigrationStoreKind) throws {
        try withMigrationSite(kind) { site in
            let before = try seededStore(site)
            let storage = site.storage()
            do {
                // The process dies with the migration half written: no finish, no abandon.
                let migration = try storage.beginMigration(from: M.a, to: M.b)
                try M.copy(migration)
            }
            storage.close()
            #expect(Set(try site.keys().map(generation(of:))) == [0, 1])
            try expectSeedUnderA(site)
            #expect(try site.pairs() == before)
        }
    }

    @Test(arguments: MigrationStoreKind.allCases)
    func theSourceGenerationACrashLeftAfterThePointerMovedIsDeletedAtTheNextOpen(_ kind: MigrationStoreKind) throws {
        try withMigrationSite(kind) { site in
            let source = try seededStore(site)
            let migration = try site.storage().beginMigration(from: M.a, to: M.b)
            try M.copy(migration)
            try migration.finish(metadata: M.metadata(M.b), counters: migration.sourceCounters)
            let migrated = try site.pairs()
            // What a crash between the pointer write and the clean-up leaves.
            try site.put(source)
            #expect(Set(try site.keys().map(generation(of:))) == [nil, 0, 1])
            let storage = site.storage()
            #expect(try storage.open(schema: M.b) == M.metadata(M.b))
            #expect(try storage.read { try M.all($0, "Person") }.map { $0.attributes.count } == [3, 3, 3, 3, 3])
            storage.close()
            #expect(try site.pairs() == migrated)
        }
    }

    @Test(arguments: MigrationStoreKind.allCases)
    func aStoreMigratesTwice(_ kind: MigrationStoreKind) throws {
        try withMigrationSite(kind) { site in
            try seededStore(site)
            let first = try site.storage().beginMigration(from: M.a, to: M.b)
            try M.copy(first)
            try first.finish(metadata: M.metadata(M.b), counters: first.sourceCounters)

            let second = try site.storage().beginMigration(from: M.b, to: M.c)
            #expect(second.sourceMetadata == M.metadata(M.b))
            let batches = try M.copy(second, batchSize: 10) { record in
                guard record.id.entity == "Person", case .string(let nickname) = record.attributes[2] else { return record }
                return Record(id: record.id, attributes: [record.attributes[0], record.attributes[1], .string(nickname.uppercased())], relationships: [])
            }
            #expect(batches == ["Person": [5], "Pet": [2], "Dog": [2]])
            try second.finish(metadata: M.metadata(M.c), counters: CommitCounters(nextKey: 10, sequence: 7))

            #expect(Set(try site.keys().map(generation(of:))) == [nil, 2])
            let storage = site.storage()
            defer { storage.close() }
            #expect(try storage.open(schema: M.c) == M.metadata(M.c))
            #expect(try storage.read { try M.all($0, "Person") }.map { $0.attributes[2] } == ["ANN", "BOB", "CY", "DI", "ED"].map(Value.string))
            #expect(try storage.write(ChangeSet(deletes: [RecordID(entity: "Pet", key: 2)])).sequence == 8)
        }
    }

    @Test(arguments: MigrationStoreKind.allCases)
    func aUniqueConstraintBrokenByTheDestinationThrowsAndAbandonKeepsTheSource(_ kind: MigrationStoreKind) throws {
        try withMigrationSite(kind) { site in
            let before = try seededStore(site)
            let migration = try site.storage().beginMigration(from: M.a, to: M.b)
            // Every person named Ann: the second batch collides with the first.
            #expect(throws: StorageError.uniqueConstraintViolation(entity: "Person", attributes: ["name"], values: [.string("Ann")])) {
                try M.copy(migration) { record in
                    guard record.id.entity == "Person" else { return record }
                    return Record(id: record.id, attributes: [.string("Ann"), record.attributes[1], .null], relationships: [])
                }
            }
            migration.abandon()
            #expect(try site.pairs() == before)
            try expectSeedUnderA(site)
        }
    }

    @Test(arguments: MigrationStoreKind.allCases)
    func aMigrationStartsOnlyFromTheStoredModelOfAClosedStore(_ kind: MigrationStoreKind) throws {
        try withMigrationSite(kind) { site in
            #expect(throws: StorageError.self) { try site.storage().beginMigration(from: M.a, to: M.b) }
            let before = try seededStore(site)
            do {
                _ = try site.storage().beginMigration(from: M.b, to: M.c)
                Issue.record("migrated from a model the store does not hold")
            } catch {
                #expect(isIncompatibleStore(error), "\(error)")
            }
            let open = site.storage()
            _ = try open.open(schema: M.a)
            do {
                _ = try open.beginMigration(from: M.a, to: M.b)
                Issue.record("migrated an open store")
            } catch {
                #expect(isInvalidRequest(error), "\(error)")
            }
            open.close()

            let storage = site.storage()
            let migration = try storage.beginMigration(from: M.a, to: M.b)
            do {
                _ = try storage.open(schema: M.a)
                Issue.record("opened a store being migrated")
            } catch {
                #expect(isInvalidRequest(error), "\(error)")
            }
            migration.abandon()
            #expect(throws: StorageError.self) { try migration.writeDestination(MergedChanges(inserts: [M.pet(20, "Late")])) }
            #expect(try site.pairs() == before)
        }
    }

    @Test(arguments: MigrationStoreKind.allCases)
    func scanningManyRecordsWhileWritingTheDestination(_ kind: MigrationStoreKind) throws {
        // With LMDB's map at 64 KiB, destination writes grow it while the scan goes on: no
        // snapshot may stay open across `visit` (growing waits for every read to end).
        try withMigrationSite(kind, smallMap: true) { site in
            let storage = site.storage()
            _ = try storage.open(schema: M.a)
            let filler = String(repeating: "x", count: 200)
            for chunk in 0..<5 {
                let records = (0..<200).map { (i: Int) -> Record in
                    let key = -Int64(i + 1)
                    if i % 4 == 0 { return M.dog(key, "dog \(chunk)-\(i)", breed: filler) }
                    return M.personA(key, "\(filler) \(chunk)-\(i)", age: Int64(i))
                }
                _ = try storage.write(ChangeSet(inserts: records))
            }
            storage.close()
            let migration = try site.storage().beginMigration(from: M.a, to: M.b)
            let batches = try M.copy(migration, batchSize: 64)
            #expect(batches["Person", default: []].reduce(0, +) == 750)
            #expect(batches["Dog", default: []].reduce(0, +) == 250)
            #expect(batches["Person", default: []].allSatisfy { $0 <= 64 })
            try migration.finish(metadata: M.metadata(M.b), counters: migration.sourceCounters)
            let reopened = site.storage()
            defer { reopened.close() }
            _ = try reopened.open(schema: M.b)
            #expect(try reopened.read { try $0.count(FetchRequest(entity: "Person", predicate: .comparison(Comparison("age", .equal, .int(1))))) } == 5)
            #expect(try reopened.read { try $0.count(FetchRequest(entity: "Pet")) } == 250)
        }
    }

    @Test func openingAMigratedLMDBStoreOfAnotherModelLeavesItsDataByteForByte() throws {
        try withMigrationSite(.lmdb) { site in
            try seededStore(site)
            let migration = try site.storage().beginMigration(from: M.a, to: M.b)
            try M.copy(migration)
            try migration.finish(metadata: M.metadata(M.b), counters: migration.sourceCounters)
            let before = try snapshotOfFiles(at: site.url)
            let storage = site.storage()
            #expect(try storage.open(schema: M.a) == M.metadata(M.b))
            storage.close()
            // `lock.mdb` is LMDB's reader table, which every read transaction writes to.
            let after = try snapshotOfFiles(at: site.url)
            #expect(after["data.mdb"] != nil && after["data.mdb"] == before["data.mdb"])
        }
    }
}
