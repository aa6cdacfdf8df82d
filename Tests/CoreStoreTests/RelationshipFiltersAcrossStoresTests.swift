import Foundation
import Testing
@testable import CoreStore

/// Filters that compare a relationship with objects, on a stack with the same entities in two
/// stores: record keys repeat from store to store, so each store must be asked only about the
/// objects it holds.
@Suite("Relationship filters across stores")
struct RelationshipFiltersAcrossStoresTests {
    /// People and dogs in a "Local" and a "Cloud" store of `kind`: Ann and Rex in Local, Bea and
    /// Tom in Cloud, inserted in the same order, so Ann and Bea have the same key (and so do Rex
    /// and Tom). Returns the stack, Ann and Bea.
    static func makeAnnAndBea(_ kind: StoreKind) throws -> (DataStack, Person, Person) {
        let stack = DataStack(CoreStoreSchema(
            modelVersion: "LC1",
            entitiesByConfiguration: [
                "Local": [Entity<Animal>("Animal", isAbstract: true), Entity<Dog>("Dog"), Entity<Cat>("Cat"), Entity<Person>("Person")],
                "Cloud": [Entity<Animal>("Animal", isAbstract: true), Entity<Dog>("Dog"), Entity<Cat>("Cat"), Entity<Person>("Person")],
            ],
            versionLock: nil
        ))
        try stack.addStorageAndWait(kind.makeStore(configuration: "Local"))
        try stack.addStorageAndWait(kind.makeStore(configuration: "Cloud"))
        for (configuration, person, dog) in [("Local", "Ann", "Rex"), ("Cloud", "Bea", "Tom")] {
            try stack.perform(synchronous: { t in
                let master = t.create(Into<Person>(configuration))
                master.name = person
                let pet = t.create(Into<Dog>(configuration))
                pet.name = dog
                pet.master = master
            })
        }
        let ann = try #require(try stack.fetchOne(From<Person>().where(\.$name == "Ann")))
        let bea = try #require(try stack.fetchOne(From<Person>().where(\.$name == "Bea")))
        #expect(ann.cs_id()?.recordID == bea.cs_id()?.recordID, "the test needs the same key in both stores")
        return (stack, ann, bea)
    }

    static func names(_ dogs: [Dog]) -> [String] { dogs.map(\.name).sorted() }

    @Test(arguments: StoreKind.allCases)
    func fetchesMatchOnlyTheStoreOfTheObject(_ kind: StoreKind) throws {
        let (stack, ann, bea) = try Self.makeAnnAndBea(kind)
        #expect(Self.names(try stack.fetchAll(From<Dog>().where(\.$master == ann))) == ["Rex"])
        #expect(Self.names(try stack.fetchAll(From<Dog>().where(\.$master == bea))) == ["Tom"])
        #expect(Self.names(try stack.fetchAll(From<Dog>().where(\.$master != ann))) == ["Tom"])
        #expect(Self.names(try stack.fetchAll(From<Dog>().where(\.$master ~= [ann]))) == ["Rex"])
        #expect(Self.names(try stack.fetchAll(From<Dog>().where(\.$master ~= [ann, bea]))) == ["Rex", "Tom"])
        #expect(Self.names(try stack.fetchAll(From<Dog>().where(\.$master == ann.cs_id()!))) == ["Rex"])
        #expect(Self.names(try stack.fetchAll(From<Dog>().where(Where<Dog>("master == %@", ann)))) == ["Rex"])
        #expect(Self.names(try stack.fetchAll(From<Dog>().where(Where<Dog>("master IN %@", [bea])))) == ["Tom"])
        #expect(Self.names(try stack.fetchAll(From<Dog>().where(Where<Dog>("master", isEqualTo: bea)))) == ["Tom"])
        #expect(Self.names(try stack.fetchAll(From<Dog>().where(Where<Dog>("master", isMemberOf: [ann])))) == ["Rex"])
        #expect(Self.names(try stack.fetchAll(From<Dog>().where(\.$name != "" && \.$master == ann))) == ["Rex"])
        #expect(Self.names(try stack.fetchAll(From<Dog>().where(!(\.$master == ann)))) == ["Tom"])
        #expect(try stack.fetchCount(From<Dog>("Cloud").where(\.$master == ann)) == 0)
        #expect(try stack.fetchCount(From<Dog>("Local").where(\.$master == ann)) == 1)
        #expect(try stack.queryValue(From<Dog>("Cloud"), Select<Dog, Int>(.count(\.$name)), \Dog.$master == ann) == 0)
        #expect(try stack.fetchCount(From<Person>().where(\.$pets == (try stack.fetchOne(From<Dog>().where(\.$name == "Tom"))))) == 1)
    }

    /// Two comparisons in one filter that name different objects with the same key: each store
    /// reads each comparison with its own objects only.
    @Test(arguments: StoreKind.allCases)
    func comparisonsNamingObjectsWithOneKeyStaySeparate(_ kind: StoreKind) throws {
        let (stack, ann, bea) = try Self.makeAnnAndBea(kind)
        #expect(Self.names(try stack.fetchAll(From<Dog>().where(\.$master == ann && \.$master != bea))) == ["Rex"])
        #expect(Self.names(try stack.fetchAll(From<Dog>().where(\.$master == ann).where(\.$master != bea))) == ["Rex"])
        #expect(Self.names(try stack.fetchAll(From<Dog>().where(Where<Dog>("master == %@ AND master != %@", ann, bea)))) == ["Rex"])
        #expect(Self.names(try stack.fetchAll(From<Dog>().where(\.$master != ann && \.$master != bea))) == [])
    }

    /// An object of another stack names a store this stack does not have: the fetch says so.
    @Test func anObjectOfAnotherStackIsRefused() throws {
        let (stack, _, _) = try Self.makeAnnAndBea(.inMemory)
        let (_, otherAnn, _) = try Self.makeAnnAndBea(.inMemory)
        do {
            _ = try stack.fetchAll(From<Dog>().where(\.$master == otherAnn))
            Issue.record("an object of another DataStack was accepted")
        } catch let error as CoreStoreError {
            guard case .invalidObject(let message) = error else {
                Issue.record("unexpected error: \(error)")
                return
            }
            #expect(message.contains("not one of this DataStack's stores"), "\(message)")
        }
    }

    /// A transaction's pending dog in Cloud, whose master has Ann's key there, is not Ann's.
    @Test(arguments: StoreKind.allCases)
    func pendingObjectsMatchOnlyTheStoreOfTheObject(_ kind: StoreKind) throws {
        let (stack, ann, _) = try Self.makeAnnAndBea(kind)
        try stack.perform(synchronous: { t in
            let bea = try #require(try t.fetchOne(From<Person>().where(\.$name == "Bea")))
            let max = t.create(Into<Dog>("Cloud"))
            max.name = "Max"
            max.master = bea
            #expect(Self.names(try t.fetchAll(From<Dog>().where(\.$master == ann))) == ["Rex"])
            #expect(Self.names(try t.fetchAll(From<Dog>().where(\.$master != ann))) == ["Max", "Tom"])
        })
    }

    /// A list of Ann's dogs keeps out a dog of Cloud renamed, and takes in a dog she gets.
    @Test(arguments: StoreKind.allCases)
    func listsMatchOnlyTheStoreOfTheObject(_ kind: StoreKind) throws {
        let (stack, ann, _) = try Self.makeAnnAndBea(kind)
        let queue = makeDeliveryQueue()
        let dogs = try stack.monitorList(From<Dog>().where(\.$master == ann).orderBy(.ascending(\.$name)), deliveryQueue: queue)
        #expect(dogs.objectsInAllSections().map(\.name) == ["Rex"])
        try stack.perform(synchronous: { t in
            for dog in try t.fetchAll(From<Dog>()) { dog.name += "!" }
            let fido = t.create(Into<Dog>("Local"))
            fido.name = "Fido"
            fido.master = t.edit(ann)
        })
        queue.sync {}
        #expect(dogs.objectsInAllSections().map(\.name) == ["Fido", "Rex!"])
    }
}
