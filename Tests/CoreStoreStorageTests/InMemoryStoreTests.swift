import Foundation
import Testing
import CoreStoreStorage
import CoreStoreInMemory

@Suite("InMemoryStore")
struct InMemoryStoreTests {
    @Test func openReturnsNilForANewStoreThenItsMetadata() throws {
        let store = InMemoryStore()
        #expect(try store.open(schema: Fixtures.schema) == nil)
        let metadata = try #require(try store.open(schema: Fixtures.schema))
        #expect(metadata.schemaHash == "hash-t1")
        #expect(metadata.modelVersion == "T1")
    }

    @Test func useBeforeOpenOrAfterCloseThrows() throws {
        let store = InMemoryStore()
        #expect(throws: StorageError.self) { try store.read { try $0.count(FetchRequest(entity: "Person")) } }
        _ = try store.open(schema: Fixtures.schema)
        store.close()
        #expect(throws: StorageError.self) { try store.write(ChangeSet(inserts: [Fixtures.cat(-1, "Tom")])) }
    }

    @Test func writesAssignIncreasingKeysAndSequences() throws {
        let store = try Fixtures.store()
        let first = try store.write(ChangeSet(inserts: [Fixtures.cat(-1, "A"), Fixtures.cat(-2, "B")]))
        let second = try store.write(ChangeSet(inserts: [Fixtures.cat(-1, "C")]))
        #expect(first.permanentIDs.values.map(\.key).sorted() == [1, 2])
        #expect(second.permanentIDs.values.map(\.key) == [3])
        #expect(second.sequence > first.sequence)
    }

    @Test func fetchFiltersSortsAndWindows() throws {
        let store = try Fixtures.store()
        _ = try store.write(ChangeSet(inserts: [
            Fixtures.person(-1, "Ann", age: 30), Fixtures.person(-2, "Bob", age: 20),
            Fixtures.person(-3, "Cid", age: 40), Fixtures.person(-4, "Dee", age: nil),
        ]))
        let request = FetchRequest(
            entity: "Person", predicate: .comparison(Comparison("age", .greaterOrEqual, .int(20))),
            sortDescriptors: [RecordSortDescriptor(key: "age", ascending: false)], limit: 2, offset: 1
        )
        let records = try store.read { try $0.fetch(request).completed(for: request, schema: Fixtures.schema) }
        #expect(records.map(\.attributes[0]) == [.string("Ann"), .string("Bob")])
        #expect(try store.read { try $0.count(request) } == 2)
        #expect(try store.read { try $0.count(FetchRequest(entity: "Person")) } == 4)
    }

    @Test func subEntitiesAreIncludedOnlyWhenAsked() throws {
        let store = try Fixtures.store()
        _ = try store.write(ChangeSet(inserts: [Fixtures.dog(-1, "Rex"), Fixtures.cat(-2, "Tom")]))
        #expect(try store.read { try $0.count(FetchRequest(entity: "Animal")) } == 2)
        #expect(try store.read { try $0.count(FetchRequest(entity: "Animal", includesSubentities: false)) } == 0)
        #expect(try store.read { try $0.count(FetchRequest(entity: "Dog")) } == 1)
        #expect(throws: StorageError.self) { try store.read { try $0.count(FetchRequest(entity: "Unicorn")) } }
    }

    @Test func recordsByIdentifierAnswerNilForMissingOnes() throws {
        let store = try Fixtures.store()
        let info = try store.write(ChangeSet(inserts: [Fixtures.cat(-1, "Tom")]))
        let tom = try #require(info.permanentIDs[RecordID(entity: "Cat", key: -1)])
        let found = try store.read { try $0.records([tom, RecordID(entity: "Cat", key: 999)]) }
        #expect(found[0]?.attributes == [.string("Tom")])
        #expect(found[1] == nil)
    }

    @Test func updatesAndDeletes() throws {
        let store = try Fixtures.store()
        _ = try store.write(ChangeSet(inserts: [Fixtures.person(-1, "Ann", age: 1), Fixtures.person(-2, "Bob", age: 2)]))
        _ = try store.write(ChangeSet(
            updates: [RecordUpdate(record: Fixtures.person(1, "Ann", age: 10), changedKeys: ["age"])],
            deletes: [RecordID(entity: "Person", key: 2)]
        ))
        let records = try store.read { try $0.fetch(FetchRequest(entity: "Person")).records }
        #expect(records == [Fixtures.person(1, "Ann", age: 10)])
    }

    @Test func aFailingWriteWritesNothing() throws {
        let store = try Fixtures.store()
        _ = try store.write(ChangeSet(inserts: [Fixtures.person(-1, "Ann", age: 1)]))
        #expect(throws: StorageError.recordNotFound(RecordID(entity: "Person", key: 42))) {
            try store.write(ChangeSet(
                inserts: [Fixtures.person(-1, "New", age: 5)],
                updates: [RecordUpdate(record: Fixtures.person(1, "Changed", age: 1), changedKeys: ["name"])],
                deletes: [RecordID(entity: "Person", key: 42)]
            ))
        }
        let records = try store.read { try $0.fetch(FetchRequest(entity: "Person")).records }
        #expect(records == [Fixtures.person(1, "Ann", age: 1)])
    }

    @Test func uniqueConstraintsAreEnforcedAtomically() throws {
        let store = try Fixtures.store()
        _ = try store.write(ChangeSet(inserts: [Fixtures.person(-1, "Ann", age: 1, email: "a@x"), Fixtures.person(-2, "Bob", age: 1, email: nil)]))
        #expect(throws: StorageError.uniqueConstraintViolation(entity: "Person", attributes: ["email"], values: [.string("a@x")])) {
            try store.write(ChangeSet(inserts: [Fixtures.person(-1, "Cid", age: 1, email: "c@x"), Fixtures.person(-2, "Imposter", age: 1, email: "a@x")]))
        }
        #expect(try store.read { try $0.count(FetchRequest(entity: "Person")) } == 2)
        _ = try store.write(ChangeSet(inserts: [Fixtures.person(-1, "Dee", age: 1, email: nil)]))
        #expect(try store.read { try $0.count(FetchRequest(entity: "Person")) } == 3, "nil never collides")
    }

    @Test func swappingUniqueValuesInOneCommitSucceeds() throws {
        let store = try Fixtures.store()
        _ = try store.write(ChangeSet(inserts: [Fixtures.person(-1, "Ann", age: 1, email: "a@x"), Fixtures.person(-2, "Bob", age: 1, email: "b@x")]))
        _ = try store.write(ChangeSet(updates: [
            RecordUpdate(record: Fixtures.person(1, "Ann", age: 1, email: "b@x"), changedKeys: ["email"]),
            RecordUpdate(record: Fixtures.person(2, "Bob", age: 1, email: "a@x"), changedKeys: ["email"]),
        ]))
        let emails = try store.read { try $0.fetch(FetchRequest(entity: "Person")).records.map(\.attributes[2]) }
        #expect(emails == [.string("b@x"), .string("a@x")])
    }

    @Test func aConstraintOnAParentCoversItsSubEntities() throws {
        let store = try Fixtures.store()
        _ = try store.write(ChangeSet(inserts: [Fixtures.dog(-1, "Max")]))
        #expect(throws: StorageError.self) { try store.write(ChangeSet(inserts: [Fixtures.cat(-1, "Max")])) }
    }

    @Test func aReadKeepsItsSnapshotWhileAWriteCommits() throws {
        let store = try Fixtures.store()
        _ = try store.write(ChangeSet(inserts: [Fixtures.cat(-1, "Before")]))
        let (before, after) = try store.read { reader -> (Int, Int) in
            let before = try reader.count(FetchRequest(entity: "Cat"))
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                _ = try? store.write(ChangeSet(inserts: [Fixtures.cat(-1, "During")]))
                done.signal()
            }
            done.wait()
            return (before, try reader.count(FetchRequest(entity: "Cat")))
        }
        #expect(before == 1)
        #expect(after == 1)
        #expect(try store.read { try $0.count(FetchRequest(entity: "Cat")) } == 2)
    }

    @Test func eraseThenOpenStartsANewStore() throws {
        let store = try Fixtures.store()
        _ = try store.write(ChangeSet(inserts: [Fixtures.cat(-1, "Tom")]))
        try store.erase()
        #expect(try store.open(schema: Fixtures.schema) == nil)
        #expect(try store.read { try $0.count(FetchRequest(entity: "Cat")) } == 0)
    }

    @Test func malformedRecordsAreRejected() throws {
        let store = try Fixtures.store()
        let wrongShape = Record(id: RecordID(entity: "Cat", key: -1), attributes: [], relationships: [])
        #expect(throws: StorageError.self) { try store.write(ChangeSet(inserts: [wrongShape])) }
        let abstract = Record(id: RecordID(entity: "Animal", key: -1), attributes: [.string("x")], relationships: [])
        #expect(throws: StorageError.self) { try store.write(ChangeSet(inserts: [abstract])) }
    }
}
