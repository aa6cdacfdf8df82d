import Foundation
import Testing
@testable import CoreStore
import CoreStoreLevelDB
import CoreStoreLMDB
import CoreStoreSQLite

/// Converting between a model object, its publisher and monitor, the stack's and a
/// transaction's instances, and snapshots, spelled as CoreStore spells it.
@Suite("Object representations")
struct ObjectRepresentationTests {
    @Test("An object, its publisher and its monitor convert to each other's forms", arguments: StoreKind.allCases)
    func conversions(kind: StoreKind) throws {
        let stack = try makeStack(kind)
        let created = try stack.perform(synchronous: { t -> Person in
            let person = t.create(Into<Person>())
            person.name = "Ann"
            person.age = 30
            return person
        })
        let person = try #require(stack.fetchExisting(created))

        let snapshot = try #require(person.asSnapshot(in: stack))
        #expect(snapshot.$name == "Ann" && snapshot.$age == 30)
        #expect(person.asReadOnly(in: stack) === person)
        let publisher = person.asPublisher(in: stack)
        #expect(publisher.asReadOnly(in: stack) === person)
        #expect(publisher.asSnapshot(in: stack) == snapshot)
        let monitor = try stack.monitorObject(person)
        #expect(monitor.asSnapshot(in: stack) == snapshot)
        #expect(monitor.asPublisher(in: stack) == publisher)

        try stack.perform(synchronous: { t in
            let editable = try #require(person.asEditable(in: t))
            #expect(editable !== person)
            editable.age = 31
            let inTransaction = try #require(person.asSnapshot(in: t))
            #expect(inTransaction.$age == 31, "a transaction's snapshot has its uncommitted changes")
            #expect(publisher.asSnapshot(in: t)?.$age == 31)
            #expect(person.asSnapshot(in: stack)?.$age == 30, "the stack's snapshot does not")
            #expect(publisher.asEditable(in: t) === editable)
        })
        #expect(person.asSnapshot(in: stack)?.$age == 31)

        try stack.perform(synchronous: { t in t.delete(person) })
        #expect(person.asSnapshot(in: stack) == nil)
        #expect(publisher.asReadOnly(in: stack) == nil)
        #expect(monitor.asSnapshot(in: stack) == nil)
    }

    @Test("An object of another stack, or not yet committed, has no representation in a stack")
    func foreignAndUncommittedObjects() throws {
        let stack = try makeStack(.inMemory)
        let other = try makeStack(.inMemory)
        let person = try stack.perform(synchronous: { t -> Person in
            let person = t.create(Into<Person>())
            person.name = "Ann"
            #expect(person.asSnapshot(in: t)?.$name == "Ann", "an uncommitted object has a snapshot in its transaction")
            #expect(person.asReadOnly(in: stack) == nil, "but not in the stack")
            return person
        })
        let stored = try #require(stack.fetchExisting(person))
        #expect(stored.asReadOnly(in: other) == nil)
        #expect(stored.asSnapshot(in: other) == nil)
    }
}

/// `unsafeRemoveAllPersistentStoresAndWait()`: the files are closed and released, and the stack
/// takes stores again.
@Suite("Removing a stack's stores")
struct StoreRemovalTests {
    @Test("After removing its stores, a stack fetches nothing, another stack opens the same files, and the store can be added again", arguments: [StoreKind.sqlite, .lmdb, .leveldb])
    func removeAndAddAgain(kind: StoreKind) throws {
        let stack = DataStack(makeSchema())
        let store = try kind.makeStore()
        let url = try #require((store as? any LocalStorage)?.fileURL)
        try stack.addStorageAndWait(store)
        try stack.perform(synchronous: { t in t.create(Into<Person>()).name = "Ann" })
        let ann = try #require(try stack.fetchOne(From<Person>()))

        stack.unsafeRemoveAllPersistentStoresAndWait()
        #expect(stack.storages.isEmpty)
        #expect(throws: CoreStoreError.self) { try stack.fetchAll(From<Person>()) }
        #expect(ann.name == "Ann", "an object fetched before keeps its values")
        #expect(stack.fetchExisting(ann) == nil)

        // The files are free: another stack opens them (LevelDB allows one opener at a time).
        do {
            let other = DataStack(makeSchema())
            try other.addStorageAndWait(Self.store(kind, at: url))
            #expect(try other.fetchCount(From<Person>()) == 1)
        }
        try stack.addStorageAndWait(Self.store(kind, at: url))
        #expect(try stack.fetchAll(From<Person>()).map(\.name) == ["Ann"])
        stack.unsafeRemoveAllPersistentStoresAndWait()
        stack.unsafeRemoveAllPersistentStoresAndWait()
        #expect(stack.storages.isEmpty, "removing twice is harmless")
    }

    private static func store(_ kind: StoreKind, at url: URL) -> any StorageInterface {
        switch kind {
        case .lmdb: LMDBStore(fileURL: url)
        case .leveldb: LevelDBStore(fileURL: url)
        default: SQLiteStore(fileURL: url)
        }
    }
}

/// The names CoreStore declares beside its types.
@Suite("CoreStore's type names and dump strings")
struct CoreStoreNamesTests {
    @Test("ModelConfiguration, EntityName and KeyPathString spell what CoreStore code writes")
    func typeNames() throws {
        let configuration: ModelConfiguration = nil
        let entity: EntityName = "Person"
        let key: KeyPathString = "name"
        let from = From<Person>([configuration])
        #expect(from.configurations?.count == 1 && from.configurations?.first == .some(nil))
        #expect(try makeSchema().runtime().entitiesByName[entity]?.description.attributeOrdinal(key) != nil)
    }

    @Test("coreStoreDumpString describes errors, stacks and objects as their debugDescription does")
    func dumpStrings() throws {
        let error = CoreStoreError.unknownEntity(typeName: "Ghost")
        #expect(error.coreStoreDumpString == error.debugDescription)
        #expect(error.coreStoreDumpString.contains("unknownEntity") && error.coreStoreDumpString.contains("Ghost"))
        let stack = try makeStack(.inMemory)
        #expect(stack.coreStoreDumpString.contains("entity Person"))
    }
}
