import Foundation
import Testing
import CoreStoreStorage
@testable import CoreStoreKeyValue

@Suite("KeyValueStorage over MemoryKeyValueStore")
struct KeyValueStorageTests {
    private func fetch(_ store: some StorageInterface, _ request: FetchRequest) throws -> [Record] {
        try store.read { try $0.fetch(request).records }
    }

    @Test("A new store returns nil, an open one its metadata; capabilities follow the engine")
    func openingANewStore() throws {
        let storage = KeyValueStorage(engine: MemoryKeyValueStore())
        #expect(try storage.open(schema: KV.schema) == nil)
        #expect(try storage.open(schema: KV.schema) == StoredMetadata(modelVersion: "V1", schemaHash: "kv-hash-1"))
        #expect(storage.capabilities == [.persistent, .concurrentReaders, .nativePredicates, .nativeSorting])
    }

    @Test("Inserts get permanent keys and the sequence grows")
    func permanentIDs() throws {
        let storage = try KV.openStore()
        let info = try storage.write(ChangeSet(inserts: [KV.person(-1, "Ann"), KV.dog(-2, "Rex", owner: RecordID(entity: "Person", key: -1))]))
        #expect(info.sequence == 1)
        #expect(info.permanentIDs[RecordID(entity: "Person", key: -1)]?.key == 1)
        let second = try storage.write(ChangeSet(inserts: [KV.person(-1, "Bob")]))
        #expect(second.sequence == 2 && second.permanentIDs.values.first?.key == 3)
        let dog = try storage.read { try $0.records([RecordID(entity: "Dog", key: 2)]) }.first ?? nil
        #expect(dog?.relationships == [[RecordID(entity: "Person", key: 1)]])
    }

    @Test("A failed write, a close and a reopen leave the counters where the last commit put them")
    func countersAfterFailuresAndReopen() throws {
        let engine = MemoryKeyValueStore()
        let storage = try KV.openStore(engine)
        _ = try storage.write(ChangeSet(inserts: [KV.person(-1, "Ann", email: "a@x")]))
        #expect(throws: StorageError.self) {
            try storage.write(ChangeSet(inserts: [KV.person(-1, "Cy"), KV.person(-2, "Di", email: "a@x")]))
        }
        let afterFailure = try storage.write(ChangeSet(inserts: [KV.person(-1, "Bob")]))
        #expect(afterFailure.sequence == 2 && afterFailure.permanentIDs.values.first?.key == 2)
        storage.close()
        let reopened = KeyValueStorage(engine: engine)
        _ = try reopened.open(schema: KV.schema)
        let afterReopen = try reopened.write(ChangeSet(inserts: [KV.person(-1, "Eve")]))
        #expect(afterReopen.sequence == 3 && afterReopen.permanentIDs.values.first?.key == 3)
        // What the engine holds agrees with what the writes reported.
        let people = try reopened.read { try $0.fetch(FetchRequest(entity: "Person")) }.records.map(\.id.key)
        #expect(people == [1, 2, 3])
    }

    @Test("records(_:) keeps input order, nil for missing, and finds a record through a parent entity")
    func recordsByID() throws {
        let storage = try KV.openStore()
        _ = try storage.write(ChangeSet(inserts: [KV.person(-1, "Ann"), KV.dog(-2, "Rex")]))
        let found = try storage.read { try $0.records([RecordID(entity: "Pet", key: 2), RecordID(entity: "Person", key: 9), RecordID(entity: "Person", key: 1), RecordID(entity: "Person", key: 2)]) }
        #expect(found.map { $0?.id.entity } == ["Dog", nil, "Person", nil])
    }

    @Test("An index follows updates and deletes")
    func indexMaintenance() throws {
        let storage = try KV.openStore()
        _ = try storage.write(ChangeSet(inserts: [KV.person(-1, "Ann", age: 30), KV.person(-2, "Bob", age: 30)]))
        let byAge = { (age: Int64) in FetchRequest(entity: "Person", predicate: .comparison(Comparison("age", .equal, .int(age)))) }
        let plan = try FetchPlanner(layout: KeyValueLayout(schema: KV.schema)).plan(byAge(30))
        guard case .indexRange(let index, _, _) = plan.access else { Issue.record("expected an index plan"); return }
        #expect(index == "Person|i|age")
        #expect(try fetch(storage, byAge(30)).map(\.id.key) == [1, 2])
        _ = try storage.write(ChangeSet(updates: [RecordUpdate(record: KV.person(1, "Ann", age: 31), changedKeys: ["age"])]))
        #expect(try fetch(storage, byAge(30)).map(\.id.key) == [2])
        #expect(try fetch(storage, byAge(31)).map(\.id.key) == [1])
        _ = try storage.write(ChangeSet(deletes: [RecordID(entity: "Person", key: 1)]))
        #expect(try fetch(storage, byAge(31)).isEmpty)
        let range = FetchRequest(entity: "Person", predicate: .comparison(Comparison("age", .greaterOrEqual, .int(0))))
        #expect(try fetch(storage, range).map(\.id.key) == [2])
    }

    @Test("After an update the changed entry is replaced, the unchanged ones stay, and both find the record")
    func updatesTouchOnlyChangedEntries() throws {
        let engine = MemoryKeyValueStore()
        let storage = try KV.openStore(engine)
        _ = try storage.write(ChangeSet(inserts: [KV.person(-1, "Ann", age: 30, email: "a@x", score: 1), KV.person(-2, "Bob", age: 40)]))
        let indexEntries = {
            try KV.dump(engine).filter { $0[0].first == KeyValueLayout.indexSpace }
        }
        let before = try indexEntries()
        // email has a unique index but its value is the same; score is indexed and changes.
        _ = try storage.write(ChangeSet(updates: [RecordUpdate(record: KV.person(1, "Ann", age: 30, email: "a@x", score: 2), changedKeys: ["score"])]))
        let after = try indexEntries()
        #expect(after.count == before.count)
        #expect(Set(before.map { $0[0] }).subtracting(after.map { $0[0] }).count == 1, "only the score entry is replaced")
        let byScore = { (score: Double) in FetchRequest(entity: "Person", predicate: .comparison(Comparison("score", .equal, .double(score)))) }
        #expect(try fetch(storage, byScore(1)).isEmpty)
        #expect(try fetch(storage, byScore(2)).map(\.id.key) == [1])
        let byEmail = FetchRequest(entity: "Person", predicate: .comparison(Comparison("email", .equal, .string("a@x"))))
        #expect(try fetch(storage, byEmail).map(\.id.key) == [1])
    }

    @Test("Changing a unique double from 0.0 to -0.0 keeps its encoding but is still checked")
    func uniqueSignedZeroIsCheckedOnUpdate() throws {
        let schema = StoreSchema(modelVersion: "V1", schemaHash: "zero", entities: [
            EntityDescription(name: "Point", attributes: [AttributeDescription(name: "x", type: .double, isOptional: true)], uniqueConstraints: [["x"]]),
        ])
        let storage = KeyValueStorage(engine: MemoryKeyValueStore())
        _ = try storage.open(schema: schema)
        let point = { (key: Int64, x: Double) in Record(id: RecordID(entity: "Point", key: key), attributes: [.double(x)], relationships: []) }
        _ = try storage.write(ChangeSet(inserts: [point(-1, 0.0), point(-2, -0.0)]))
        #expect(throws: StorageError.uniqueConstraintViolation(entity: "Point", attributes: ["x"], values: [.double(-0.0)])) {
            try storage.write(ChangeSet(updates: [RecordUpdate(record: point(1, -0.0), changedKeys: ["x"])]))
        }
    }

    @Test("A unique violation throws and writes nothing; swaps inside one change set succeed")
    func uniqueConstraints() throws {
        let engine = MemoryKeyValueStore()
        let storage = try KV.openStore(engine)
        _ = try storage.write(ChangeSet(inserts: [KV.person(-1, "Ann", email: "a@x"), KV.person(-2, "Bob", email: "b@x"), KV.dog(-3, "Rex", tag: 7)]))
        let before = try KV.dump(engine)
        #expect(throws: StorageError.uniqueConstraintViolation(entity: "Person", attributes: ["email"], values: [.string("a@x")])) {
            try storage.write(ChangeSet(inserts: [KV.person(-1, "Cy", email: "a@x")]))
        }
        // The constraint declared on Pet covers Dog.
        #expect(throws: StorageError.uniqueConstraintViolation(entity: "Pet", attributes: ["tag"], values: [.int(7)])) {
            try storage.write(ChangeSet(inserts: [KV.pet(-1, "Tom", tag: 7)]))
        }
        #expect(try KV.dump(engine) == before)
        _ = try storage.write(ChangeSet(updates: [
            RecordUpdate(record: KV.person(1, "Ann", email: "b@x"), changedKeys: ["email"]),
            RecordUpdate(record: KV.person(2, "Bob", email: "a@x"), changedKeys: ["email"]),
        ]))
        let byEmail = FetchRequest(entity: "Person", predicate: .comparison(Comparison("email", .equal, .string("a@x"))))
        #expect(try fetch(storage, byEmail).map(\.id.key) == [2])
        // nil never collides.
        _ = try storage.write(ChangeSet(inserts: [KV.person(-1, "N1"), KV.person(-2, "N2")]))
    }

    @Test("A throwing write leaves no trace")
    func failedWriteLeavesNoTrace() throws {
        let engine = MemoryKeyValueStore()
        let storage = try KV.openStore(engine)
        _ = try storage.write(ChangeSet(inserts: [KV.person(-1, "Ann", age: 1)]))
        let before = try KV.dump(engine)
        #expect(throws: StorageError.recordNotFound(RecordID(entity: "Person", key: 99))) {
            try storage.write(ChangeSet(inserts: [KV.person(-1, "New", age: 5)], updates: [RecordUpdate(record: KV.person(99, "X"), changedKeys: [])]))
        }
        #expect(throws: StorageError.self) {
            try storage.write(ChangeSet(inserts: [KV.person(-1, "New"), Record(id: RecordID(entity: "Person", key: -2), attributes: [], relationships: [])]))
        }
        #expect(throws: StorageError.unknownEntity("Nope")) {
            try storage.write(ChangeSet(inserts: [Record(id: RecordID(entity: "Nope", key: -1), attributes: [], relationships: [])]))
        }
        #expect(try KV.dump(engine) == before)
        #expect(try storage.write(ChangeSet(inserts: [KV.person(-1, "Next")])).permanentIDs.values.first?.key == 2)
    }

    @Test("Close and open again keeps records, metadata and counters")
    func reopen() throws {
        let engine = MemoryKeyValueStore()
        let storage = try KV.openStore(engine)
        let metadata = StoredMetadata(modelVersion: "V1", schemaHash: "kv-hash-1", userInfo: ["k": "v\0"])
        _ = try storage.write(ChangeSet(inserts: [KV.person(-1, "Ann", age: 3)], metadata: metadata))
        storage.close()
        #expect(throws: StorageError.self) { try storage.read { try $0.count(FetchRequest(entity: "Person")) } }
        let reopened = KeyValueStorage(engine: engine)
        #expect(try reopened.open(schema: KV.schema) == metadata)
        #expect(try fetch(reopened, FetchRequest(entity: "Person", predicate: .comparison(Comparison("age", .equal, .int(3))))).map(\.id.key) == [1])
        let info = try reopened.write(ChangeSet(inserts: [KV.person(-1, "Bob")]))
        #expect(info.sequence == 2 && info.permanentIDs.values.first?.key == 2)
    }

    @Test("A different schema hash returns the stored metadata and changes nothing")
    func schemaMismatch() throws {
        let engine = MemoryKeyValueStore()
        let storage = try KV.openStore(engine)
        _ = try storage.write(ChangeSet(inserts: [KV.person(-1, "Ann")]))
        storage.close()
        try engine.open()
        let pairs = try KV.dump(engine)
        let other = StoreSchema(modelVersion: "V2", schemaHash: "other", entities: KV.schema.entities)
        let reopened = KeyValueStorage(engine: engine)
        #expect(try reopened.open(schema: other) == StoredMetadata(modelVersion: "V1", schemaHash: "kv-hash-1"))
        #expect(try KV.dump(engine) == pairs)
        try reopened.erase()
        #expect(try reopened.open(schema: other) == nil)
    }

    @Test("Data without metadata, or garbled metadata, is an incompatible store")
    func incompatibleStores() throws {
        let foreign = MemoryKeyValueStore()
        try foreign.open()
        try foreign.write { try $0.put([0x42], [1]) }
        #expect {
            try KeyValueStorage(engine: foreign).open(schema: KV.schema)
        } throws: { error in
            if case StorageError.incompatibleStore = error { return true }
            return false
        }
        try foreign.open()
        #expect(try KV.dump(foreign) == [[[0x42], [1]]])

        let garbled = MemoryKeyValueStore()
        _ = try KV.openStore(garbled)
        try garbled.write { try $0.put(KeyValueLayout(schema: KV.schema).metadataKey("metadata"), [9, 9]) }
        #expect {
            try KeyValueStorage(engine: garbled).open(schema: KV.schema)
        } throws: { error in
            if case StorageError.incompatibleStore = error { return true }
            return false
        }
    }

    @Test("A damaged record value throws a StorageError on read")
    func damagedRecord() throws {
        let engine = MemoryKeyValueStore()
        let storage = try KV.openStore(engine)
        _ = try storage.write(ChangeSet(inserts: [KV.person(-1, "Ann")]))
        let layout = KeyValueLayout(schema: KV.schema)
        try engine.write { try $0.put(layout.recordKey(entity: "Person", key: 1), [1, 3]) }
        #expect(throws: StorageError.self) { try storage.read { try $0.fetch(FetchRequest(entity: "Person")) } }
    }

    @Test("Unsorted fetches with a limit stop early and keep record-key order")
    func limitWithoutSort() throws {
        let storage = try KV.openStore()
        _ = try storage.write(ChangeSet(inserts: (1...20).map { KV.person(-Int64($0), "P\($0 % 3)", age: Int64($0 % 5)) }))
        let request = FetchRequest(entity: "Person", predicate: .comparison(Comparison("age", .greater, .int(1))), limit: 3, offset: 2)
        #expect(try fetch(storage, request).map(\.id.key) == [4, 7, 8])
        #expect(try storage.read { try $0.count(request) } == 3)
    }

    @Test("An index in the sort order replaces the sort and stops at the limit")
    func indexOrderServesSorting() throws {
        let storage = try KV.openStore()
        let names = ["Eve", "Ann", "Dan", "Bob", "Cid", "Ann"]
        _ = try storage.write(ChangeSet(inserts: names.enumerated().map { KV.person(Int64(-1 - $0.offset), $0.element, age: 30) }))
        let planner = FetchPlanner(layout: KeyValueLayout(schema: KV.schema))
        let ascending = FetchRequest(entity: "Person", sortDescriptors: [RecordSortDescriptor(key: "name", ascending: true)], limit: 3, offset: 1)
        #expect(try planner.plan(ascending).isOrdered)
        #expect(try fetch(storage, ascending).map { $0.attributes[0] } == [.string("Ann"), .string("Bob"), .string("Cid")])
        #expect(try fetch(storage, FetchRequest(entity: "Person", sortDescriptors: [RecordSortDescriptor(key: "name", ascending: true)], limit: 2)).map(\.id.key) == [2, 6],
                "equal names keep record-key order")
        let descending = FetchRequest(entity: "Person", sortDescriptors: [RecordSortDescriptor(key: "name", ascending: false)], limit: 2)
        #expect(try !planner.plan(descending).isOrdered, "a reverse scan would order ties by descending key")
        #expect(try fetch(storage, descending).map { $0.attributes[0] } == [.string("Eve"), .string("Dan")])
    }
}

@Suite("FetchPlanner bounds")
struct FetchPlannerBoundsTests {
    @Test("String ranges treat NUL-extended strings as greater, not equal")
    func nulExtendedStrings() throws {
        let storage = try KV.openStore()
        _ = try storage.write(ChangeSet(inserts: ["Ann", "Ann\0", "Ann\0\0", "Anna", "Am"].enumerated().map { KV.person(-Int64($0.offset + 1), $0.element) }))
        func keys(_ op: ComparisonOperator) throws -> [Int64] {
            let request = FetchRequest(entity: "Person", predicate: .comparison(Comparison("name", op, .string("Ann"))))
            return try storage.read { try $0.fetch(request).records.map(\.id.key) }
        }
        #expect(try keys(.greater) == [2, 3, 4])
        #expect(try keys(.greaterOrEqual) == [1, 2, 3, 4])
        #expect(try keys(.equal) == [1])
        #expect(try keys(.lessOrEqual) == [1, 5])
        #expect(try keys(.less) == [5])
    }
}

extension FetchPlannerBoundsTests {
    private func access(_ request: FetchRequest) throws -> String? {
        guard case .indexRange(let index, _, _) = try FetchPlanner(layout: KeyValueLayout(schema: KV.schema)).plan(request).access else { return nil }
        return index
    }

    @Test("The planner prefers the longest equality prefix plus a range")
    func choosesCompoundIndex() throws {
        let p: RecordPredicate = .and([
            .comparison(Comparison("age", .greater, .int(3))),
            .comparison(Comparison("name", .equal, .string("Ann"))),
        ])
        #expect(try access(FetchRequest(entity: "Person", predicate: p)) == "Person|c|name,age")
        #expect(try access(FetchRequest(entity: "Person", predicate: .comparison(Comparison("email", .equal, .string("a@x"))))) == "Person|u|email")
        #expect(try access(FetchRequest(entity: "Pet", predicate: .comparison(Comparison(["owner"], .equal, .records([RecordID(entity: "Person", key: 1)]))))) == "Pet|r|owner")
    }

    @Test("Comparisons an index cannot bound leave the plan an entity scan")
    func unboundableComparisons() throws {
        #expect(try access(FetchRequest(entity: "Person", predicate: .comparison(Comparison("name", .equal, .string("ann"), options: [.caseInsensitive])))) == nil)
        #expect(try access(FetchRequest(entity: "Person", predicate: .comparison(Comparison("age", .equal, .double(3))))) == nil)
        #expect(try access(FetchRequest(entity: "Person", predicate: .comparison(Comparison("score", .less, .double(.nan))))) == nil)
        #expect(try access(FetchRequest(entity: "Person", predicate: .or([.comparison(Comparison("age", .equal, .int(3)))])) ) == nil)
        #expect(try access(FetchRequest(entity: "Person", predicate: .comparison(Comparison(["age"], .equal, .value(.int(3)), quantifier: .none)))) == nil)
    }

    @Test("An index only some selected entities maintain is not used")
    func subEntityIndexes() throws {
        let breed: RecordPredicate = .comparison(Comparison("breed", .equal, .string("pug")))
        #expect(try access(FetchRequest(entity: "Dog", predicate: breed)) == "Pet|i|breed")
        let tag: RecordPredicate = .comparison(Comparison("tag", .equal, .int(3)))
        #expect(try access(FetchRequest(entity: "Pet", predicate: tag)) == "Pet|u|tag")
        #expect(try access(FetchRequest(entity: "Dog", includesSubentities: false, predicate: tag)) == "Pet|u|tag")
    }
}

@Suite("KeyValueStorage snapshots")
struct KeyValueSnapshotTests {
    @Test("A read sees one snapshot while a write commits")
    func readIsolation() throws {
        let storage = try KV.openStore()
        _ = try storage.write(ChangeSet(inserts: [KV.person(-1, "Ann")]))
        let counts = try storage.read { reader -> [Int] in
            let before = try reader.count(FetchRequest(entity: "Person"))
            _ = try storage.write(ChangeSet(inserts: [KV.person(-1, "Bob")]))
            return [before, try reader.count(FetchRequest(entity: "Person"))]
        }
        #expect(counts == [1, 1])
        #expect(try storage.read { try $0.count(FetchRequest(entity: "Person")) } == 2)
    }

    @Test("Deleting or updating through another entity name is recordNotFound, as in the reference store")
    func writesNameTheConcreteEntity() throws {
        let storage = try KV.openStore()
        _ = try storage.write(ChangeSet(inserts: [KV.dog(-1, "Rex")]))
        #expect(throws: StorageError.recordNotFound(RecordID(entity: "Pet", key: 1))) {
            try storage.write(ChangeSet(deletes: [RecordID(entity: "Pet", key: 1)]))
        }
        _ = try storage.write(ChangeSet(deletes: [RecordID(entity: "Dog", key: 1)]))
        #expect(try storage.read { try $0.records([RecordID(entity: "Dog", key: 1)]) } == [nil])
    }
}

extension KeyValueSnapshotTests {
    @Test("Concurrent readers alongside a writer always see whole commits")
    func concurrentReaders() throws {
        let storage = try KV.openStore()
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for i in 0..<50 {
                if worker == 0 {
                    // Each commit inserts a pair sharing one age, so a snapshot never holds an odd count.
                    _ = try? storage.write(ChangeSet(inserts: [KV.person(-1, "A", age: Int64(i)), KV.person(-2, "B", age: Int64(i))]))
                } else {
                    let n = (try? storage.read { try $0.count(FetchRequest(entity: "Person", predicate: .comparison(Comparison("age", .greaterOrEqual, .int(0)))) ) }) ?? -1
                    #expect(n >= 0 && n % 2 == 0)
                }
            }
        }
        #expect(try storage.read { try $0.count(FetchRequest(entity: "Person")) } == 100)
    }
}
