import Foundation
import Testing
@testable import CoreStore
import CoreStoreStorage

@Suite("Schema reflection")
struct SchemaTests {
    @Test func entityDescriptionsListInheritedFieldsFirst() throws {
        let runtime = try makeSchema(versionLock: nil).runtime()
        let dog = try #require(runtime.entitiesByName["Dog"])
        #expect(dog.description.parentName == "Animal")
        #expect(dog.description.attributes.map(\.name) == ["species", "name", "tag"])
        #expect(dog.description.relationships.map(\.name) == ["master"])
        let animal = try #require(runtime.entitiesByName["Animal"])
        #expect(animal.description.isAbstract)
        #expect(animal.description.parentName == nil)
    }

    @Test func attributeTypesAndOptionalityComeFromSwiftTypes() throws {
        let runtime = try makeSchema().runtime()
        let person = try #require(runtime.entitiesByName["Person"])
        let byName = Dictionary(uniqueKeysWithValues: person.description.attributes.map { ($0.name, $0) })
        #expect(byName["name"]?.type == .string)
        #expect(byName["name"]?.isOptional == false)
        #expect(byName["age"]?.type == .integer)
        #expect(byName["nickname"]?.isOptional == true)
        #expect(byName["mood"]?.type == .string)
        #expect(byName["tags"]?.type == .bytes)
        #expect(byName["displayName"] == nil, "virtual fields are not stored")
        #expect(byName["name"]?.isIndexed == true)
    }

    @Test func inverseDeclaredOnOneSideIsKnownOnBoth() throws {
        let runtime = try makeSchema().runtime()
        let person = try #require(runtime.entitiesByName["Person"])
        let dog = try #require(runtime.entitiesByName["Dog"])
        let pets = try #require(person.description.relationships.first { $0.name == "pets" })
        let master = try #require(dog.description.relationships.first { $0.name == "master" })
        #expect(pets.inverseName == "master")
        #expect(pets.kind == .toManyUnordered)
        #expect(pets.deleteRule == .cascade)
        #expect(master.inverseName == "pets")
        #expect(master.kind == .toOne)
        #expect(master.destinationEntity == "Person")
        let friends = try #require(person.description.relationships.first { $0.name == "friends" })
        #expect(friends.kind == .toManyOrdered)
        #expect(friends.inverseName == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func entityNamesAreIndependentOfClassNames(_ kind: StoreKind) throws {
        let schema = CoreStoreSchema(modelVersion: "V1", entities: [Entity<Renamed>("Human")], versionLock: nil)
        let stack = DataStack(schema)
        try stack.addStorageAndWait(kind.makeStore())
        try stack.perform(synchronous: { $0.create(Into<Renamed>()).title = "Ann" })
        let ids = try stack.fetchObjectIDs(From<Renamed>())
        #expect(ids.map(\.entityName) == ["Human"])
    }

    @Test func versionLockIsDeterministicAndAcceptedWhenItMatches() throws {
        let first = try makeSchema().computedVersionLock()
        let second = try makeSchema().computedVersionLock()
        #expect(first == second)
        #expect(first.hashesByEntityName.keys.sorted() == ["Animal", "Cat", "Dog", "Person"])
        #expect(first.hashesByEntityName["Person"]?.count == 4)
        let locked = DataStack(makeSchema(versionLock: first))
        #expect(throws: Never.self) { try locked.addStorageAndWait(InMemoryStore()) }
    }

    @Test func versionLockMismatchRefusesToOpen() throws {
        var hashes = try makeSchema().computedVersionLock().hashesByEntityName
        hashes["Person"] = [1, 2, 3, 4]
        let stack = DataStack(makeSchema(versionLock: VersionLock(hashes)))
        #expect {
            try stack.addStorageAndWait(InMemoryStore())
        } throws: { error in
            guard case CoreStoreError.mismatchedVersionLock(let version, _, _) = error else { return false }
            return version == "V1"
        }
    }

    @Test func canonicalDescriptionNamesEverythingTheLockCovers() throws {
        let text = try #require(makeSchema().canonicalDescription(ofEntity: "Dog"))
        #expect(text == """
        entity:Dog
        parent:Animal
        abstract:0
        attribute:tag:uuid:required
        relationship:master:toOne:Person:pets:nullify
        """)
    }

    @Test func versionLockLiteralRoundTrips() throws {
        let lock = try makeSchema().computedVersionLock()
        #expect(lock.description.contains("\"Person\": [0x"))
        #expect(VersionLock(lock.hashesByEntityName) == lock)
    }

    @Test func relationshipToAClassOutsideTheSchemaIsAnError() {
        let schema = CoreStoreSchema(modelVersion: "V1", entities: [Entity<Person>("Person")], versionLock: nil)
        let stack = DataStack(schema)
        #expect {
            try stack.addStorageAndWait(InMemoryStore())
        } throws: { error in
            guard case CoreStoreError.invalidSchema(let message) = error else { return false }
            return message.contains("Dog")
        }
    }

    @Test func duplicateEntityNamesAreAnError() {
        let schema = CoreStoreSchema(modelVersion: "V1", entities: [Entity<Cat>("Same"), Entity<Animal>("Same")], versionLock: nil)
        #expect(throws: CoreStoreError.self) { try schema.computedVersionLock() }
    }

    @Test func previousVersionKeyPathIsKeptForMigrations() throws {
        let schema = CoreStoreSchema(modelVersion: "V1", entities: [Entity<Renamed>("Renamed")], versionLock: nil)
        let entity = try #require(schema.runtime().entitiesByName["Renamed"])
        #expect(entity.description.attributes.first?.renamingIdentifier == "oldTitle")
    }

    @Test func aPlainFieldKeepsNoDetailsAndADeclaredOneKeepsThem() throws {
        // Every object holds each of its fields: a plain declaration keeps its key and its
        // initial value, and nothing else.
        #expect(MemoryLayout<FieldContainer<Renamed>.Stored<Int>>.size <= 40)
        let renamed = Renamed(asMeta: ())
        #expect(renamed.$code.details == nil)
        #expect(renamed.$code.previousVersionKeyPath == nil)
        #expect(renamed.$title.previousVersionKeyPath == "oldTitle")
        let account = ProxiedAccount(asMeta: ())
        #expect(account.$first.details == nil)
        #expect(account.$initials.cs_affectedByKeyPaths == ["first"])
        #expect(account.$title.accessors?.getter != nil)
        let stamped = Stamped(asMeta: ())
        #expect(stamped.$created.isDynamic)
        #expect(stamped.$note.details == nil)
        #expect(!stamped.$note.isDynamic)
        // What the schema records of each.
        let entity = try #require(CoreStoreSchema(modelVersion: "V1", entities: [Entity<Stamped>("Stamped")], versionLock: nil).runtime().entitiesByName["Stamped"])
        let created = try #require(entity.description.attributes.firstIndex { $0.name == "created" })
        let note = try #require(entity.description.attributes.firstIndex { $0.name == "note" })
        #expect(entity.initialValues[created] != nil)
        #expect(entity.initialValues[note] == nil)
        #expect(entity.description.attributes[note].defaultValue == .null)
    }

    @Test func uniqueConstraintsAndIndexesAreResolvedToKeys() throws {
        let schema = CoreStoreSchema(
            modelVersion: "V1",
            entities: [Entity<Renamed>("Renamed", indexes: [[\Renamed.$title, \Renamed.$code]], uniqueConstraints: [[\Renamed.$code]])],
            versionLock: nil
        )
        let entity = try #require(schema.runtime().entitiesByName["Renamed"])
        #expect(entity.description.indexes == [["title", "code"]])
        #expect(entity.description.uniqueConstraints == [["code"]])
    }
}

final class Renamed: CoreStoreObject {
    @Field.Stored("title", previousVersionKeyPath: "oldTitle") var title: String = ""
    @Field.Stored("code") var code: Int = 0
}

final class Stamped: CoreStoreObject {
    @Field.Stored("created", dynamicInitialValue: { Date(timeIntervalSince1970: 1) }) var created: Date
    @Field.Stored("note") var note: String?
}
