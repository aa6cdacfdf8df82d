import Foundation
import Testing
@testable import CoreStore

/// `[[String: Any]]` rows in a comparable form.
func comparable(_ rows: [[String: Any]]) -> [[String: AnyHashable]] {
    rows.map { $0.compactMapValues { $0 as? AnyHashable } }
}

/// Expects a query to fail with `invalidPredicate` whose message contains `text`.
func expectInvalidQuery(_ text: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    do {
        try body()
        Issue.record("expected the query to fail with a message containing \"\(text)\"", sourceLocation: sourceLocation)
    } catch let error as CoreStoreError {
        guard case .invalidPredicate(let message) = error else {
            Issue.record("expected invalidPredicate, got \(error)", sourceLocation: sourceLocation)
            return
        }
        #expect(message.contains(text), "\(message)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected a CoreStoreError, got \(error)", sourceLocation: sourceLocation)
    }
}

@Suite("Querying")
struct QueryTests {
    /// Ann 31 (friends Bob and Cid, dog Rex), Bob 25 "Bobby" (friend Ann, dog Fido),
    /// Cid 40, Dee 25 (grumpy), Eve 19; and a cat, Tom; on a store of the given kind.
    struct Fixture {
        let stack: DataStack

        init(_ kind: StoreKind) throws {
            stack = try makeStack(kind)
            try insertPeople(stack, [("Ann", 31), ("Bob", 25), ("Cid", 40), ("Dee", 25), ("Eve", 19)])
            try stack.perform(synchronous: { transaction in
                let people = try transaction.fetchAll(From<Person>().orderBy(.ascending(\.$name)))
                guard people.count == 5 else { throw CoreStoreError.unknown(message: "set-up failed") }
                let (ann, bob, cid, dee) = (people[0], people[1], people[2], people[3])
                ann.friends = [bob, cid]
                bob.friends = [ann]
                bob.nickname = "Bobby"
                dee.mood = .grumpy
                let rex = transaction.create(Into<Dog>())
                rex.name = "Rex"
                rex.species = "dog"
                rex.master = ann
                let fido = transaction.create(Into<Dog>())
                fido.name = "Fido"
                fido.species = "dog"
                fido.master = bob
                let tom = transaction.create(Into<Cat>())
                tom.name = "Tom"
                tom.species = "cat"
                tom.lives = 7
            })
        }
    }

    // MARK: Select terms

    @Test func selectTermsHaveDefaultKeysAndAliases() {
        let terms: [SelectTerm<Person>] = [
            "age", .attribute(\.$age), .average(\.$age), .count(\.$age), .maximum(\.$age), .minimum(\.$age), .sum(\.$age),
            .objectID(), .count(\.$friends), .count("age", as: "count"), .attribute("name", as: "fullName"), .objectID(as: "id"),
        ]
        #expect(terms.map(\.alias) == [
            "age", "age", "average(age)", "count(age)", "max(age)", "min(age)", "sum(age)",
            "objectID", "count(friends)", "count", "fullName", "id",
        ])
        #expect(terms.map(\.keyPath) == ["age", "age", "age", "age", "age", "age", "age", "", "friends", "age", "name", ""])
        #expect(SelectTerm<Person>.sum(\.$age) == .sum("age"))
        #expect(Select<Person, Int>("age") == Select(.attribute(\.$age)))
    }

    @Test(arguments: StoreKind.allCases)
    func everyAggregateAsAValue(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        #expect(try stack.queryValue(From<Person>(), Select<Person, Int>(.maximum(\.$age))) == 40)
        #expect(try stack.queryValue(From<Person>(), Select<Person, Int>(.minimum("age"))) == 19)
        #expect(try stack.queryValue(From<Person>(), Select<Person, Int>(.sum(\.$age))) == 140)
        #expect(try stack.queryValue(From<Person>(), Select<Person, Double>(.average(\.$age))) == 28.0)
        #expect(try stack.queryValue(From<Person>(), Select<Person, Int>(.count(\.$age))) == 5)
        #expect(try stack.queryValue(From<Person>(), Select<Person, Int>(.count(\.$nickname))) == 1, "count ignores nil")
        #expect(try stack.queryValue(From<Person>(), Select<Person, String>(.maximum(\.$name))) == "Eve")
        #expect(try stack.queryValue(From<Person>(), Select<Person, String>(.minimum(\.$mood))) == "grumpy")
    }

    @Test(arguments: StoreKind.allCases)
    func everyAggregateInOneRowWithItsKeys(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        let rows = try stack.queryAttributes(From<Person>(), Select(
            .average(\.$age), .count(\.$age), .maximum(\.$age), .minimum(\.$age), .sum(\.$age), .sum("age", as: "total")
        ))
        #expect(comparable(rows) == [["average(age)": 28.0, "count(age)": 5, "max(age)": 40, "min(age)": 19, "sum(age)": 140, "total": 140]])
    }

    // MARK: The README's examples, with `Select<O, T>`

    @Test(arguments: StoreKind.allCases)
    func readmeSelectExamples(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        let johnsAge = try stack.queryValue(From<Person>(), Select<Person, Int>("age"), \Person.$name == "Bob")
        #expect(johnsAge == 25)

        let allAges = try stack.queryAttributes(From<Person>(), Select("age"))
        #expect(comparable(allAges) == [["age": 31], ["age": 25], ["age": 40], ["age": 25], ["age": 19]])

        let chained = try stack.queryValue(From<Person>().select(\.$age).where(\.$name == "Cid"))
        #expect(chained == 40)

        let oldestAge = try stack.queryValue(From<Person>(), Select<Person, Int>(.maximum("age")))
        #expect(oldestAge == 40)

        let personJSON = try stack.queryAttributes(From<Person>(), Select("name", "age"), OrderBy<Person>(.ascending(\.$name)))
        #expect(comparable(personJSON) == [
            ["name": "Ann", "age": 31], ["name": "Bob", "age": 25], ["name": "Cid", "age": 40],
            ["name": "Dee", "age": 25], ["name": "Eve", "age": 19],
        ])

        let friends = try stack.queryAttributes(From<Person>(), Select("name", .count("friends")), OrderBy<Person>(.ascending(\.$name)))
        #expect(comparable(friends) == [
            ["name": "Ann", "count(friends)": 2], ["name": "Bob", "count(friends)": 1], ["name": "Cid", "count(friends)": 0],
            ["name": "Dee", "count(friends)": 0], ["name": "Eve", "count(friends)": 0],
        ])

        let aliased = try stack.queryAttributes(From<Person>(), Select("name", .count("friends", as: "friendsCount")), \Person.$age > 30, OrderBy<Person>(.ascending(\.$name)))
        #expect(comparable(aliased) == [["name": "Ann", "friendsCount": 2], ["name": "Cid", "friendsCount": 0]])
    }

    @Test(arguments: StoreKind.allCases)
    func readmeGroupByExamples(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        let expected: [[String: AnyHashable]] = [["age": 19, "count": 1], ["age": 25, "count": 2], ["age": 31, "count": 1], ["age": 40, "count": 1]]
        let clauses = try stack.queryAttributes(From<Person>(), Select("age", .count("age", as: "count")), GroupBy("age"))
        #expect(comparable(clauses) == expected)
        let chained = try stack.queryAttributes(
            From<Person>()
                .select(NSDictionary.self, .attribute(\.$age), .count(\.$age, as: "count"))
                .groupBy(\.$age)
        )
        #expect(comparable(chained) == expected)
    }

    // MARK: Chains and clauses

    @Test(arguments: StoreKind.allCases)
    func chainBuildersFromTheIssue(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        let oldest = try stack.queryValue(From<Person>().select(Int.self, .maximum(\.$age)).where(\.$age > 1))
        #expect(oldest == 40)
        let youngOnly = try stack.queryValue(From<Person>().select(Int.self, .maximum(\.$age)).where(\.$age < 30))
        #expect(youngOnly == 25)
        let fromFetchChain = try stack.queryValue(From<Person>().where(\.$age > 30).orderBy(.ascending(\.$age)).select(\.$name))
        #expect(fromFetchChain == "Ann")
        let nickname: String? = try stack.queryValue(From<Person>().where(\.$name == "Bob").select(\.$nickname))
        #expect(nickname == "Bobby")
        let viaSelectClause = try stack.queryValue(From<Person>().select(Select<Person, Int>(.sum(\.$age))).where(\.$mood == .happy))
        #expect(viaSelectClause == 115)
    }

    @Test(arguments: StoreKind.allCases)
    func groupingBySeveralKeys(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        let rows = try stack.queryAttributes(
            From<Person>().select(NSDictionary.self, "age", "mood", .count("name", as: "people")).groupBy(\.$age, \.$mood)
        )
        #expect(comparable(rows) == [
            ["age": 19, "mood": "happy", "people": 1], ["age": 25, "mood": "grumpy", "people": 1],
            ["age": 25, "mood": "happy", "people": 1], ["age": 31, "mood": "happy", "people": 1],
            ["age": 40, "mood": "happy", "people": 1],
        ])
        let byStrings = try stack.queryAttributes(From<Person>(), Select("mood", .sum("age")), GroupBy("mood"), OrderBy<Person>(.descending(\.$mood)))
        #expect(comparable(byStrings) == [["mood": "happy", "sum(age)": 115], ["mood": "grumpy", "sum(age)": 25]])
        let twoClauses = try stack.queryAttributes(From<Person>(), Select("age", "mood"), GroupBy<Person>(\.$mood), GroupBy<Person>(\.$age), \Person.$age == 25)
        #expect(comparable(twoClauses) == [["age": 25, "mood": "grumpy"], ["age": 25, "mood": "happy"]], "mood first, then age")
    }

    @Test(arguments: StoreKind.allCases)
    func whereOrderByAndTweakShapeTheRows(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        let groups = try stack.queryAttributes(
            From<Person>().select(NSDictionary.self, "age", .count("age", as: "n"))
                .where(\.$name != "Ann").groupBy(\.$age).orderBy(.descending(\.$age)).tweak { $0.fetchLimit = 2; $0.fetchOffset = 1 }
        )
        #expect(comparable(groups) == [["age": 25, "n": 2], ["age": 19, "n": 1]])
        let names = try stack.queryAttributes(From<Person>().select(NSDictionary.self, "name").orderBy(.descending(\.$age), .ascending(\.$name)).tweak { $0.fetchLimit = 3 })
        #expect(comparable(names) == [["name": "Cid"], ["name": "Ann"], ["name": "Bob"]])
        let second = try stack.queryValue(From<Person>().select(\.$name).orderBy(.ascending(\.$age)).tweak { $0.fetchOffset = 1 })
        #expect(second == "Bob")
        let youngestGroup = try stack.queryValue(From<Person>().select(Int.self, .count(\.$age)).groupBy(\.$age))
        #expect(youngestGroup == 1, "queryValue reads the first group")
    }

    @Test(arguments: StoreKind.allCases)
    func aggregatesOverNoRowsAreNilExceptCount(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        let none = \Person.$age > 100
        #expect(try stack.queryValue(From<Person>(), Select<Person, Int>(.maximum(\.$age)), none) == nil)
        #expect(try stack.queryValue(From<Person>(), Select<Person, Double>(.average(\.$age)), none) == nil)
        #expect(try stack.queryValue(From<Person>(), Select<Person, Int>(.sum(\.$age)), none) == nil)
        #expect(try stack.queryValue(From<Person>(), Select<Person, Int>(.count(\.$age)), none) == 0)
        #expect(try stack.queryValue(From<Person>(), Select<Person, Int>("age"), none) == nil, "no row")
        let row = try stack.queryAttributes(From<Person>(), Select(.count(\.$age), .sum(\.$age), .minimum(\.$name)), none)
        #expect(comparable(row) == [["count(age)": 0]])
        #expect(try stack.queryAttributes(From<Person>(), Select("age"), GroupBy("age"), none).isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func queryAttributesLeavesOutNil(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        let rows = try stack.queryAttributes(From<Person>(), Select("name", "nickname"), \Person.$age == 25, OrderBy<Person>(.ascending(\.$name)))
        #expect(comparable(rows) == [["name": "Bob", "nickname": "Bobby"], ["name": "Dee"]])
        #expect(rows[1]["nickname"] == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func objectIDColumns(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        let annID = try #require(try stack.fetchObjectID(From<Person>().where(\.$name == "Ann")))
        let id = try stack.queryValue(From<Person>(), Select<Person, ObjectID>(.objectID()), \Person.$name == "Ann")
        #expect(id == annID)
        let rows = try stack.queryAttributes(From<Person>(), Select("name", .objectID(as: "id")), OrderBy<Person>(.ascending(\.$name)), Tweak { $0.fetchLimit = 1 })
        #expect(rows.count == 1)
        #expect(rows.first?["id"] as? ObjectID == annID)
        #expect(rows.first?["name"] as? String == "Ann")
    }

    @Test(arguments: StoreKind.allCases)
    func subEntitiesAndRelationshipCounts(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        let animals = try stack.queryAttributes(From<Animal>().select(NSDictionary.self, "species", .count("name", as: "n")).groupBy("species"))
        #expect(comparable(animals) == [["species": "cat", "n": 1], ["species": "dog", "n": 2]])
        let dogsOnly = try stack.queryValue(From<Animal>().select(Int.self, .count("name")).tweak { $0.includesSubentities = false })
        #expect(dogsOnly == 0, "Animal is abstract, so without sub-entities there is nothing")
        let pets = try stack.queryAttributes(From<Person>().select(NSDictionary.self, "name", .count(\.$pets, as: "pets")).where(\.$age > 24).orderBy(.ascending(\.$name)))
        #expect(comparable(pets) == [["name": "Ann", "pets": 1], ["name": "Bob", "pets": 1], ["name": "Cid", "pets": 0], ["name": "Dee", "pets": 0]])
    }

    @Test(arguments: StoreKind.allCases)
    func severalStoresAreCombined(_ kind: StoreKind) throws {
        let stack = try makeLocalAndCloudStack(kind)
        try stack.perform(synchronous: { transaction in
            transaction.create(Into<Note>("Local")).text = "b"
            transaction.create(Into<Note>("Cloud")).text = "a"
            transaction.create(Into<Note>("Cloud")).text = "b"
        })
        #expect(try stack.queryValue(From<Note>(), Select<Note, Int>(.count(\.$text))) == 3)
        #expect(try stack.queryValue(From<Note>("Local"), Select<Note, Int>(.count(\.$text))) == 1)
        let grouped = try stack.queryAttributes(From<Note>(), Select("text", .count("text", as: "n")), GroupBy("text"))
        #expect(comparable(grouped) == [["text": "a", "n": 1], ["text": "b", "n": 2]])
        let texts = try stack.queryAttributes(From<Note>(), Select("text"), OrderBy<Note>(.descending(\.$text)), Tweak { $0.fetchLimit = 2 })
        #expect(comparable(texts) == [["text": "b"], ["text": "b"]])
    }

    // MARK: Transactions

    @Test(arguments: StoreKind.allCases)
    func queriesInATransactionSeePendingChanges(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        try stack.perform(synchronous: { transaction in
            let zed = transaction.create(Into<Person>())
            zed.name = "Zed"
            zed.age = 50
            let eve = try transaction.fetchOne(From<Person>().where(\.$name == "Eve"))
            let bob = try transaction.fetchOne(From<Person>().where(\.$name == "Bob"))
            _ = transaction.delete(eve)
            bob?.age = 26

            #expect(try transaction.queryValue(From<Person>(), Select<Person, Int>(.maximum(\.$age))) == 50)
            #expect(try transaction.queryValue(From<Person>(), Select<Person, Int>(.minimum(\.$age))) == 25)
            #expect(try transaction.queryValue(From<Person>(), Select<Person, Int>(.sum(\.$age))) == 172)
            #expect(try transaction.queryValue(From<Person>(), Select<Person, Int>(.count(\.$age))) == 5)
            let groups = try transaction.queryAttributes(From<Person>(), Select("age", .count("age", as: "n")), GroupBy("age"))
            #expect(comparable(groups) == [["age": 25, "n": 1], ["age": 26, "n": 1], ["age": 31, "n": 1], ["age": 40, "n": 1], ["age": 50, "n": 1]])
            let oldest = try transaction.queryAttributes(From<Person>().select(NSDictionary.self, "name", .count(\.$friends)).orderBy(.descending(\.$age)).tweak { $0.fetchLimit = 2 })
            #expect(comparable(oldest) == [["name": "Zed", "count(friends)": 0], ["name": "Cid", "count(friends)": 0]])
            let zedID = try transaction.queryValue(From<Person>(), Select<Person, ObjectID>(.objectID()), \Person.$name == "Zed")
            #expect(zedID?.isTemporary == true)

            let committedOnly = Tweak { $0.includesPendingChanges = false }
            #expect(try transaction.queryValue(From<Person>(), Select<Person, Int>(.maximum(\.$age)), committedOnly) == 40)
            #expect(try transaction.queryValue(From<Person>(), Select<Person, Int>(.sum(\.$age)), committedOnly) == 140)
            #expect(try stack.queryValue(From<Person>(), Select<Person, Int>(.maximum(\.$age))) == 40, "the stack sees commits only")
        })
        #expect(try stack.queryValue(From<Person>(), Select<Person, Int>(.sum(\.$age))) == 172)
    }

    // MARK: Bad input

    @Test(arguments: StoreKind.allCases)
    func badQueriesThrowInvalidPredicate(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        expectInvalidQuery("'colour'") { _ = try stack.queryValue(From<Person>(), Select<Person, Int>("colour")) }
        expectInvalidQuery("'colour'") { _ = try stack.queryAttributes(From<Person>(), Select(.maximum("colour"))) }
        expectInvalidQuery("sum(name)") { _ = try stack.queryValue(From<Person>(), Select<Person, Int>(.sum(\.$name))) }
        expectInvalidQuery("string attribute") { _ = try stack.queryValue(From<Person>(), Select<Person, Double>(.average("nickname"))) }
        expectInvalidQuery("'name' is selected without an aggregate") { _ = try stack.queryAttributes(From<Person>(), Select("name", .count("age"))) }
        expectInvalidQuery("must be a GroupBy key") { _ = try stack.queryAttributes(From<Person>(), Select("name", "age"), GroupBy("age")) }
        expectInvalidQuery("cannot be read as Int") { _ = try stack.queryValue(From<Person>(), Select<Person, Int>("name")) }
        expectInvalidQuery("only be ordered by its GroupBy keys") {
            _ = try stack.queryAttributes(From<Person>(), Select("age"), GroupBy("age"), OrderBy<Person>(.ascending(\.$name)))
        }
        expectInvalidQuery("objectID()") { _ = try stack.queryAttributes(From<Person>(), Select(.objectID(), .count("age"))) }
        expectInvalidQuery("count(friends)") { _ = try stack.queryAttributes(From<Person>(), Select("age", .count("friends")), GroupBy("age")) }
        expectInvalidQuery("relationship") { _ = try stack.queryAttributes(From<Person>(), Select("pets")) }
        expectInvalidQuery("cannot group 'Person' by 'pets'") { _ = try stack.queryAttributes(From<Person>(), Select(.count("age")), GroupBy("pets")) }
        expectInvalidQuery("displayName") { _ = try stack.queryAttributes(From<Person>(), Select("displayName")) }
        expectInvalidQuery("named 'age'") { _ = try stack.queryAttributes(From<Person>(), Select("age", .attribute("name", as: "age"))) }
        expectInvalidQuery("cannot sort") { _ = try stack.queryAttributes(From<Person>(), Select("age"), OrderBy<Person>(.ascending("colour"))) }
        expectInvalidQuery("bad format") {
            _ = try stack.queryValue(From<Person>(), Select<Person, Int>(.count(\.$age)), Where<Person>(failing: .invalidPredicate(message: "bad format")))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func badQueriesFailOnAnEmptyStoreToo(_ kind: StoreKind) throws {
        let empty = try makeStack(kind)
        expectInvalidQuery("'colour'") { _ = try empty.queryValue(From<Person>(), Select<Person, Int>(.sum("colour"))) }
        expectInvalidQuery("sum(name)") { _ = try empty.queryValue(From<Person>(), Select<Person, Int>(.sum("name"))) }
        expectInvalidQuery("'name' is selected without an aggregate") { _ = try empty.queryAttributes(From<Person>(), Select("name", .count("age"))) }
        expectInvalidQuery("bad format") {
            _ = try empty.queryAttributes(From<Person>().select(NSDictionary.self, "age").where(Where(failing: .invalidPredicate(message: "bad format"))))
        }
        #expect(try empty.queryValue(From<Person>(), Select<Person, Int>(.count(\.$age))) == 0)
    }
}
