import Foundation
import Testing
@testable import CoreStore

/// Typed predicates through relationships, over a fixed data set:
///
/// | person | age | pets        | friends   |
/// |--------|-----|-------------|-----------|
/// | Ann    | 30  | Rex, Fido   | Bob, Zoë  |
/// | Bob    | 25  | Spot        | Ann       |
/// | Émile  | 40  |             |           |
/// | Zoë    | 35  |             |           |
///
/// Dogs: Rex, Fido, Spot and Stray (no master). Cat: Tom.
@Suite("Typed predicates")
struct TypedPredicateTests {
    /// The data set above, on a store of the given kind.
    struct Fixture {
        let stack: DataStack

        init(_ kind: StoreKind) throws {
            stack = try makeStack(kind)
            try stack.perform(synchronous: { transaction in
                func person(_ name: String, _ age: Int) -> Person {
                    let person = transaction.create(Into<Person>())
                    person.name = name
                    person.age = age
                    return person
                }
                func dog(_ name: String, _ master: Person?) {
                    let dog = transaction.create(Into<Dog>())
                    dog.name = name
                    dog.master = master
                }
                let ann = person("Ann", 30), bob = person("Bob", 25)
                _ = person("Émile", 40)
                let zoe = person("Zoë", 35)
                ann.friends = [bob, zoe]
                bob.friends = [ann]
                dog("Rex", ann)
                dog("Fido", ann)
                dog("Spot", bob)
                dog("Stray", nil)
                let cat = transaction.create(Into<Cat>())
                cat.name = "Tom"
            })
        }

        func people(_ clause: Where<Person>) throws -> [String] {
            try stack.fetchAll(From<Person>().where(clause)).map(\.name).sorted()
        }

        func dogs(_ clause: Where<Dog>) throws -> [String] {
            try stack.fetchAll(From<Dog>().where(clause)).map(\.name).sorted()
        }

        func person(_ name: String) throws -> Person {
            try #require(try stack.fetchOne(From<Person>().where(\.$name == name)))
        }

        func dog(_ name: String) throws -> Dog {
            try #require(try stack.fetchOne(From<Dog>().where(\.$name == name)))
        }
    }

    // MARK: Paths

    @Test(arguments: StoreKind.allCases)
    func toOnePathComparesTheDestinationsField(_ kind: StoreKind) throws {
        let dogs = try Fixture(kind).dogs
        #expect(try dogs((\.$master ~ \.$name) == "Ann") == ["Fido", "Rex"])
        #expect(try dogs((\.$master ~ \.$age) > 26) == ["Fido", "Rex"])
        #expect(try dogs((\.$master ~ \.$age) <= 25) == ["Spot"])
        #expect(try dogs((\.$master ~ \.$name) ~= ["Bob", "Zoë"]) == ["Spot"])
    }

    @Test(arguments: StoreKind.allCases)
    func missingToOneDestinationReachesNil(_ kind: StoreKind) throws {
        let dogs = try Fixture(kind).dogs
        #expect(try dogs((\.$master ~ \.$name) == nil) == ["Stray"])
        #expect(try dogs((\.$master ~ \.$name) != nil) == ["Fido", "Rex", "Spot"])
        #expect(try dogs((\.$master ~ \.$age) < 100) == ["Fido", "Rex", "Spot"], "ordering never matches nil")
    }

    @Test(arguments: StoreKind.allCases)
    func quantifiersOverToMany(_ kind: StoreKind) throws {
        let people = try Fixture(kind).people
        #expect(try people((\.$pets ~ \.$name).any() == "Rex") == ["Ann"])
        #expect(try people((\.$pets ~ \.$name).all() != "Rex") == ["Bob", "Zoë", "Émile"], "ALL is true without pets")
        #expect(try people((\.$pets ~ \.$name).none() == "Spot") == ["Ann", "Zoë", "Émile"])
        #expect(try people((\.$pets ~ \.$name).all() ~= ["Rex", "Fido"]) == ["Ann", "Zoë", "Émile"])
        #expect(try people((\.$friends ~ \.$age).any() >= 35) == ["Ann"])
    }

    @Test(arguments: StoreKind.allCases)
    func countingToMany(_ kind: StoreKind) throws {
        let fixture = try Fixture(kind)
        let (people, dogs) = (fixture.people, fixture.dogs)
        #expect(try people((\Person.$pets).count() >= 2) == ["Ann"])
        #expect(try people((\Person.$pets).count() == 0) == ["Zoë", "Émile"])
        #expect(try people((\Person.$friends).count() ~= [1, 2]) == ["Ann", "Bob"])
        #expect(try dogs((\.$master ~ \.$pets).count() == 1) == ["Spot"])
        #expect(try people((\.$friends ~ \.$pets).count().any() > 0) == ["Ann", "Bob"])
    }

    @Test(arguments: StoreKind.allCases)
    func longerChains(_ kind: StoreKind) throws {
        let fixture = try Fixture(kind)
        let (people, dogs) = (fixture.people, fixture.dogs)
        #expect(try dogs((\.$master ~ \.$friends ~ \.$name).any() == "Zoë") == ["Fido", "Rex"])
        #expect(try people((\.$friends ~ \.$pets ~ \.$name).any() == "Spot") == ["Ann"])
        #expect(try people((\.$pets ~ \.$master ~ \.$name).all() == "Ann") == ["Ann", "Zoë", "Émile"])
    }

    @Test(arguments: StoreKind.allCases)
    func inheritedFieldsAndAbstractEntities(_ kind: StoreKind) throws {
        let fixture = try Fixture(kind)
        let (stack, dogs) = (fixture.stack, fixture.dogs)
        #expect(try dogs(\.$name == "Rex") == ["Rex"])
        let animals = try stack.fetchAll(From<Animal>().where(\.$name ~= ["Rex", "Tom"])).map(\.name).sorted()
        #expect(animals == ["Rex", "Tom"])
        #expect(try stack.fetchAll(From<Animal>().where(Where(\.$name, hasPrefix: "T"))).first is Cat)
    }

    // MARK: Objects and IDs

    @Test(arguments: StoreKind.allCases)
    func relationshipEqualsObjectOrNil(_ kind: StoreKind) throws {
        let fixture = try Fixture(kind)
        let (dogs, person) = (fixture.dogs, fixture.person)
        let ann = try person("Ann"), bob = try person("Bob")
        #expect(try dogs(\.$master == ann) == ["Fido", "Rex"])
        #expect(try dogs(\.$master != ann) == ["Spot", "Stray"])
        #expect(try dogs(\.$master == nil) == ["Stray"])
        #expect(try dogs(\.$master != nil) == ["Fido", "Rex", "Spot"])
        #expect(try dogs(\.$master ~= [ann, bob]) == ["Fido", "Rex", "Spot"])
        #expect(try dogs(\.$master ~= [Person]()) == [])
    }

    @Test(arguments: StoreKind.allCases)
    func toManyEqualsObjectMeansContains(_ kind: StoreKind) throws {
        let fixture = try Fixture(kind)
        let (people, dog) = (fixture.people, fixture.dog)
        let rex = try dog("Rex"), spot = try dog("Spot")
        #expect(try people(\.$pets == rex) == ["Ann"])
        #expect(try people(\.$pets != rex) == ["Bob", "Zoë", "Émile"])
        #expect(try people(\.$pets ~= [rex, spot]) == ["Ann", "Bob"])
        #expect(try people(\.$friends == nil) == ["Zoë", "Émile"])
        #expect(try people((\.$friends ~ \.$pets).any() == spot) == ["Ann"])
    }

    @Test(arguments: StoreKind.allCases)
    func objectIDsWorkLikeObjects(_ kind: StoreKind) throws {
        let fixture = try Fixture(kind)
        let (dogs, person) = (fixture.dogs, fixture.person)
        let ann = try #require(try person("Ann").cs_id())
        let bob = try #require(try person("Bob").cs_id())
        #expect(try dogs(\.$master == ann) == ["Fido", "Rex"])
        #expect(try dogs(\.$master != bob) == ["Fido", "Rex", "Stray"])
        #expect(try dogs(\.$master ~= [ann, bob]) == ["Fido", "Rex", "Spot"])
        #expect(try dogs((\.$master ~ \.$friends) == bob) == ["Fido", "Rex"])
    }

    @Test(arguments: StoreKind.allCases)
    func objectsFromATransactionMatchInsideIt(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        let names = try stack.perform(synchronous: { transaction -> [String] in
            let cara = transaction.create(Into<Person>())
            cara.name = "Cara"
            let pup = transaction.create(Into<Dog>())
            pup.name = "Pup"
            pup.master = cara
            return try transaction.fetchAll(From<Dog>().where(\.$master == cara)).map(\.name)
        })
        #expect(names == ["Pup"])
    }

    // MARK: String matching

    @Test(arguments: StoreKind.allCases)
    func stringMatchingWithOptions(_ kind: StoreKind) throws {
        let people = try Fixture(kind).people
        #expect(try people(Where(\.$name, contains: "o")) == ["Bob", "Zoë"])
        #expect(try people(Where(\.$name, hasPrefix: "e")) == [])
        #expect(try people(Where(\.$name, hasPrefix: "e", options: .caseInsensitive)) == [])
        #expect(try people(Where(\.$name, hasPrefix: "e", options: [.caseInsensitive, .diacriticInsensitive])) == ["Émile"])
        #expect(try people(Where(\.$name, hasSuffix: "E", options: [.caseInsensitive, .diacriticInsensitive])) == ["Zoë", "Émile"])
        #expect(try people(Where(\.$name, like: "?o*")) == ["Bob", "Zoë"])
        #expect(try people(Where(\.$name, like: "ann", options: .caseInsensitive)) == ["Ann"])
        #expect(try people(Where(\.$name, matches: "[A-Z][a-z]+")) == ["Ann", "Bob"])
        #expect(try people(Where(\.$nickname, contains: "")) == [], "nil never matches")
    }

    @Test(arguments: StoreKind.allCases)
    func stringMatchingThroughRelationships(_ kind: StoreKind) throws {
        let fixture = try Fixture(kind)
        let (people, dogs) = (fixture.people, fixture.dogs)
        #expect(try dogs(Where(\.$master ~ \.$name, hasPrefix: "A")) == ["Fido", "Rex"])
        #expect(try people(Where((\.$pets ~ \.$name).any(), contains: "i")) == ["Ann"])
        #expect(try people(Where((\.$pets ~ \.$name).all(), like: "*o*")) == ["Bob", "Zoë", "Émile"])
    }

    @Test(arguments: StoreKind.allCases)
    func invalidRegularExpressionThrows(_ kind: StoreKind) throws {
        let people = try Fixture(kind).people
        #expect(throws: CoreStoreError.self) { try people(Where(\.$name, matches: "([")) }
    }

    // MARK: Combining

    @Test(arguments: StoreKind.allCases)
    func optionalConjunctionAndDisjunction(_ kind: StoreKind) throws {
        let people = try Fixture(kind).people
        let none: Where<Person>? = nil
        #expect(try people(\.$age > 28 &&? none) == ["Ann", "Zoë", "Émile"])
        #expect(try people(none &&? \.$age > 38) == ["Émile"])
        #expect(try people(\.$age > 38 ||? none) == ["Émile"])
        #expect(try people(\.$age < 26 ||? Optional(\.$age > 38)) == ["Bob", "Émile"])
        #expect(try people(\.$age > 28 &&? Optional(\.$age < 38)) == ["Ann", "Zoë"])
    }

    @Test(arguments: StoreKind.allCases)
    func combiningSequences(_ kind: StoreKind) throws {
        let people = try Fixture(kind).people
        let clauses: [Where<Person>] = [\.$age > 20, \.$age < 36, Where(\.$name, contains: "o")]
        #expect(try people(clauses.combinedByAnd()) == ["Bob", "Zoë"])
        #expect(try people([\.$name == "Ann", \.$name == "Bob"].combinedByOr()) == ["Ann", "Bob"])
        #expect(try people([Where<Person>]().combinedByAnd()).count == 4)
        #expect(try people([Where<Person>]().combinedByOr()) == [])
    }

    @Test(arguments: StoreKind.allCases)
    func chainedCombineByAndOr(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        func names(_ chain: FetchChainBuilder<Person>) throws -> [String] { try stack.fetchAll(chain).map(\.name).sorted() }
        // As in CoreStore: the listed conditions are joined, then ANDed with the earlier filters.
        #expect(try names(From<Person>().where(combineByOr: \.$age == 25, \.$age == 40)) == ["Bob", "Émile"])
        #expect(try names(From<Person>().where(\.$age > 25).where(combineByOr: \.$age == 25, \.$age == 40)) == ["Émile"])
        #expect(try names(From<Person>().where(combineByAnd: \.$age > 25, \.$age < 40)) == ["Ann", "Zoë"])
        #expect(try names(From<Person>().orderBy(.ascending(\.$name)).where(combineByAnd: \.$age > 25, \.$age < 40)) == ["Ann", "Zoë"])
        let query = From<Person>().select(Int.self, .count(\.$name)).where(combineByOr: \.$age == 25, \.$age == 40)
        #expect(try stack.queryValue(query) == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func closureFiltersOnEveryChain(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        #expect(try stack.fetchAll(From<Person>().where { $0.$age == 25 }).map(\.name) == ["Bob"])
        #expect(try stack.fetchAll(From<Person>().orderBy(.ascending(\.$name)).where { $0.$age > 25 && $0.$age < 40 }).map(\.name) == ["Ann", "Zoë"])
        #expect(try stack.queryValue(From<Person>().select(Int.self, .count(\.$name)).where { $0.$age >= 40 }) == 1)
        let monitor = try stack.monitorSectionedList(
            From<Person>().sectionBy(\.$age).where { $0.$age < 40 }.orderBy(.ascending(\.$age), .ascending(\.$name)),
            deliveryQueue: makeDeliveryQueue()
        )
        #expect(monitor.numberOfObjects() == 3)
    }

    // MARK: Pending changes and deletes

    @Test(arguments: StoreKind.allCases)
    func pathsSeePendingChangesAndCommittedDestinations(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        try stack.perform(synchronous: { transaction in
            let spot = try #require(try transaction.fetchOne(From<Dog>().where(\.$name == "Spot")))
            spot.name = "Spotty"
        })
        let found = try stack.perform(synchronous: { transaction -> [String] in
            // Edit the dog only: its master is not loaded in this transaction, so the path is
            // resolved through the store.
            let spotty = try #require(try transaction.fetchOne(From<Dog>().where(\.$name == "Spotty")))
            spotty.name = "Spot"
            return try transaction.fetchAll(From<Dog>().where((\.$master ~ \.$name) == "Bob")).map(\.name)
        })
        #expect(found == ["Spot"])
    }

    @Test(arguments: StoreKind.allCases)
    func deleteAllAcceptsPathPredicates(_ kind: StoreKind) throws {
        let fixture = try Fixture(kind)
        let (stack, dogs) = (fixture.stack, fixture.dogs)
        let deleted = try stack.perform(synchronous: { transaction in
            try transaction.deleteAll(From<Dog>().where((\.$master ~ \.$name) == "Ann"))
        })
        #expect(deleted == 2)
        #expect(try dogs(Where(true)) == ["Spot", "Stray"])
        let byCount = try stack.perform(synchronous: { transaction in
            try transaction.deleteAll(From<Person>().where((\Person.$pets).count() == 0 && (\.$friends ~ \.$name).any() == "Ann"))
        })
        #expect(byCount == 0, "Bob still has Spot")
    }
}

@Suite("SectionBy")
struct SectionByTests {
    @Test func sectionNamesOfValues() {
        let section = SectionBy<Person>(\.$age)
        #expect(section.sectionKeyPath == "age")
        #expect(section.sectionName(for: .int(42)) == "42")
        #expect(section.sectionName(for: .null) == nil)
        #expect(section.sectionName(for: .bool(true)) == "true")
        #expect(section.sectionName(for: .string("Ann")) == "Ann")
        #expect(section.sectionName(for: .bytes(Data([0, 171]))) == "00ab")
        #expect(section.sectionName(for: .date(Date(timeIntervalSince1970: 0))) == "1970-01-01T00:00:00.000Z")
    }

    @Test func indexTransformer() {
        let section = SectionBy<Person>("name", sectionIndexTransformer: { $0.map { String($0.prefix(1)) } })
        #expect(section.sectionIndexTransformer("Ann") == "A")
        #expect(section.sectionIndexTransformer(nil) == nil)
    }
}
