import Foundation
import Testing
@testable import CoreStore
import CoreStoreStorage

final class Note: CoreStoreObject {
    @Field.Stored("text") var text: String = ""
}

final class Draft: CoreStoreObject {
    @Field.Stored("text") var text: String = ""
}

func makeConfiguredSchema() -> CoreStoreSchema {
    CoreStoreSchema(
        modelVersion: "C1",
        entitiesByConfiguration: [
            "Local": [Entity<Note>("Note"), Entity<Draft>("Draft")],
            "Cloud": [Entity<Note>("Note")],
        ],
        versionLock: nil
    )
}

/// A stack of ``makeConfiguredSchema()`` with a store of `kind` for each of its configurations.
func makeLocalAndCloudStack(_ kind: StoreKind) throws -> DataStack {
    let stack = DataStack(makeConfiguredSchema())
    try stack.addStorageAndWait(kind.makeStore(configuration: "Local"))
    try stack.addStorageAndWait(kind.makeStore(configuration: "Cloud"))
    return stack
}

@Suite("DataStack setup and configurations")
struct DataStackSetupTests {
    @Test(arguments: StoreKind.allCases)
    func addStorageAndWaitReturnsTheStore(_ kind: StoreKind) throws {
        let stack = DataStack(makeSchema())
        let store = try kind.makeStore()
        let added = try stack.addStorageAndWait(store)
        #expect(added === store)
        #expect(stack.storages.count == 1)
        #expect(stack.modelVersion == "V1")
    }

    @Test(arguments: StoreKind.allCases)
    func addStorageCompletesOnTheMainQueue(_ kind: StoreKind) async throws {
        func addStorage<S: StorageInterface>(_ store: S, to stack: DataStack) async -> SetupResult<any StorageInterface> {
            await withCheckedContinuation { continuation in
                stack.addStorage(store) { result in
                    dispatchPrecondition(condition: .onQueue(.main))
                    continuation.resume(returning: result.map { $0 as any StorageInterface })
                }
            }
        }
        let stack = DataStack(makeSchema())
        let result = await addStorage(try kind.makeStore(), to: stack)
        #expect(throws: Never.self) { try result.get() }
        #expect(try stack.fetchCount(From<Person>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func asyncAddStorage(_ kind: StoreKind) async throws {
        let stack = DataStack(makeSchema())
        let store = try await stack.async.addStorage(kind.makeStore())
        #expect(store.configuration == nil)
        #expect(stack.storages.count == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func theSameStoreCannotBeAddedTwice(_ kind: StoreKind) throws {
        let store = try kind.makeStore()
        let first = DataStack(makeSchema())
        try first.addStorageAndWait(store)
        #expect(throws: CoreStoreError.self) { try first.addStorageAndWait(store) }
        let second = DataStack(makeSchema())
        #expect(throws: CoreStoreError.self) { try second.addStorageAndWait(store) }
    }

    @Test(arguments: StoreKind.allCases)
    func twoStoresOfTheSameConfigurationAreRejected(_ kind: StoreKind) throws {
        let stack = DataStack(makeSchema())
        try stack.addStorageAndWait(kind.makeStore())
        #expect(throws: CoreStoreError.self) { try stack.addStorageAndWait(kind.makeStore()) }
    }

    @Test(arguments: StoreKind.allCases)
    func storesHoldTheEntitiesOfTheirConfiguration(_ kind: StoreKind) throws {
        let stack = try makeLocalAndCloudStack(kind)
        try stack.perform(synchronous: { transaction in
            transaction.create(Into<Note>("Local")).text = "local"
            transaction.create(Into<Note>("Cloud")).text = "cloud"
            transaction.create(Into<Draft>()).text = "draft"
        })
        #expect(try stack.fetchAll(From<Note>().orderBy(.ascending(\.$text))).map(\.text) == ["cloud", "local"])
        #expect(try stack.fetchAll(From<Note>("Cloud")).map(\.text) == ["cloud"])
        #expect(try stack.fetchAll(From<Note>("Local")).map(\.text) == ["local"])
        #expect(try stack.fetchCount(From<Note>("Local", "Cloud")) == 2)
        #expect(try stack.fetchAll(From<Draft>()).map(\.text) == ["draft"])
        let limited = try stack.fetchAll(From<Note>().orderBy(.descending(\.$text)).tweak { $0.fetchLimit = 1 })
        #expect(limited.map(\.text) == ["local"])
    }

    /// A commit gathers its inserts by store in one pass: inserts that alternate between stores,
    /// with a deleted one among them, each go to their own store, and the transaction that
    /// goes on after its commit finds the committed ones (not the deleted one) under their
    /// permanent identifiers.
    @Test(arguments: StoreKind.allCases)
    func insertsThatAlternateBetweenStoresWithADeletedOneEachReachTheirStore(_ kind: StoreKind) throws {
        let stack = try makeLocalAndCloudStack(kind)
        try stack.perform(synchronous: { transaction in
            transaction.create(Into<Note>("Local")).text = "a"
            let gone = transaction.create(Into<Note>("Local"))
            gone.text = "gone"
            transaction.delete(gone)
            transaction.create(Into<Note>("Cloud")).text = "b"
            transaction.create(Into<Note>("Local")).text = "c"
            transaction.create(Into<Draft>()).text = "d"
        })
        #expect(try stack.fetchAll(From<Note>("Local").orderBy(.ascending(\.$text))).map(\.text) == ["a", "c"])
        #expect(try stack.fetchAll(From<Note>("Cloud")).map(\.text) == ["b"])
        #expect(try stack.fetchAll(From<Draft>()).map(\.text) == ["d"])

        let transaction = stack.beginUnsafe()
        let first = transaction.create(Into<Note>("Local"))
        first.text = "first"
        let deleted = transaction.create(Into<Note>("Local"))
        deleted.text = "deleted"
        transaction.delete(deleted)
        let kept = transaction.create(Into<Note>("Cloud"))
        kept.text = "kept"
        let local = transaction.create(Into<Note>("Local"))
        local.text = "local"
        try transaction.commitAndWait()
        for object in [first, kept, local] {
            #expect(object.cs_id()?.isTemporary == false)
            #expect(try transaction.fetchOne(From<Note>().where(\.$text == object.text)) === object)
        }
        #expect(try transaction.fetchCount(From<Note>().where(\.$text == "deleted")) == 0)
        #expect(try stack.fetchAll(From<Note>("Local").orderBy(.ascending(\.$text))).map(\.text) == ["a", "c", "first", "local"])
        #expect(try stack.fetchAll(From<Note>("Cloud").orderBy(.ascending(\.$text))).map(\.text) == ["b", "kept"])
    }

    @Test(arguments: StoreKind.allCases)
    func creatingAnEntityThatLivesInSeveralStoresWithoutAConfigurationFails(_ kind: StoreKind) throws {
        let stack = try makeLocalAndCloudStack(kind)
        #expect {
            try stack.perform(synchronous: { $0.create(Into<Note>()).text = "where?" })
        } throws: { error in
            guard case CoreStoreError.ambiguousStore(let entity, let configurations) = error else { return false }
            return entity == "Note" && configurations.count == 2
        }
        #expect(try stack.fetchCount(From<Note>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func creatingAnEntityThatLivesInNoStoreFails(_ kind: StoreKind) throws {
        let stack = DataStack(makeConfiguredSchema())
        try stack.addStorageAndWait(kind.makeStore(configuration: "Cloud"))
        #expect {
            try stack.perform(synchronous: { $0.create(Into<Draft>()).text = "nowhere" })
        } throws: { error in
            guard case CoreStoreError.persistentStoreNotFound(let entity, _) = error else { return false }
            return entity == "Draft"
        }
        #expect(throws: CoreStoreError.self) {
            try stack.perform(synchronous: { $0.create(Into<Note>("Local")).text = "missing store" })
        }
    }

    @Test(arguments: StoreKind.allCases)
    func creatingAnAbstractEntityFails(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        #expect(throws: CoreStoreError.self) {
            try stack.perform(synchronous: { _ = $0.create(Into<Animal>()) })
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aStoreForAnUnknownConfigurationIsRejected(_ kind: StoreKind) throws {
        let stack = DataStack(makeConfiguredSchema())
        #expect(throws: CoreStoreError.self) { try stack.addStorageAndWait(kind.makeStore(configuration: "Nope")) }
    }

    @Test(arguments: StoreKind.allCases)
    func storedDataOfAnotherModelIsRefusedAndLeftUntouched(_ kind: StoreKind) throws {
        let store = try kind.makeStore()
        let old = StoreSchema(modelVersion: "Old", schemaHash: "feedface", entities: [])
        #expect(try store.open(schema: old) == nil)
        let stack = DataStack(makeSchema())
        #expect {
            try stack.addStorageAndWait(store)
        } throws: { error in
            guard case CoreStoreError.schemaMismatch(_, let version, let hash, _, _) = error else { return false }
            return version == "Old" && hash == "feedface"
        }
    }

    @Test func defaultStackCanBeReplaced() throws {
        let stack = try makeStack(.inMemory)
        let previous = CoreStoreDefaults.dataStack
        CoreStoreDefaults.dataStack = stack
        defer { CoreStoreDefaults.dataStack = previous }
        #expect(CoreStoreDefaults.dataStack === stack)
    }

    @Test(arguments: StoreKind.allCases)
    func schemaHistoryPicksTheCurrentVersion(_ kind: StoreKind) throws {
        let v1 = CoreStoreSchema(modelVersion: "V1", entities: [Entity<Note>("Note")], versionLock: nil)
        let v2 = CoreStoreSchema(modelVersion: "V2", entities: [Entity<Note>("Note"), Entity<Draft>("Draft")], versionLock: nil)
        #expect(DataStack(schemaHistory: SchemaHistory(v1, v2)).modelVersion == "V2")
        #expect(DataStack(v1, v2, migrationChain: ["V2", "V1"]).modelVersion == "V1")
        let stack = DataStack(v1, v2, migrationChain: ["V1", "V2"])
        try stack.addStorageAndWait(kind.makeStore())
        try stack.perform(synchronous: { $0.create(Into<Draft>()).text = "v2 only" })
        #expect(try stack.fetchCount(From<Draft>()) == 1)
    }

    @Test func debugDescriptionsAreReadable() throws {
        let stack = try makeStack(.inMemory)
        #expect(stack.debugDescription.contains("modelVersion: \"V1\""))
        #expect(stack.debugDescription.contains("entity Dog"))
        #expect(stack.debugDescription.contains("InMemoryStore"))
        try insertPeople(stack, [("Ann", 3)])
        let ann = try #require(try stack.fetchOne(From<Person>()))
        #expect(ann.debugDescription.contains("name: \"Ann\""))
        let error = CoreStoreError.persistentStoreNotFound(entity: "Person", configuration: "X")
        #expect(error.debugDescription == "CoreStoreError.persistentStoreNotFound: No store in the DataStack holds entity 'Person' for configuration 'X'.")
    }
}
