import Foundation
import Testing
@testable import CoreStore

@Suite("Fetching")
struct FetchTests {
    /// Ann 31, Bob 25 (nicknamed "Bobby"), Cid 40, Dee 25 and Eve 19, on a store of the given kind.
    struct Fixture {
        let stack: DataStack

        init(_ kind: StoreKind) throws {
            stack = try makeStack(kind)
            try insertPeople(stack, [("Ann", 31), ("Bob", 25), ("Cid", 40), ("Dee", 25), ("Eve", 19)])
            try stack.perform(synchronous: { transaction in
                let nicknamed = try #require(try transaction.fetchOne(From<Person>().where(\.$name == "Bob")))
                nicknamed.nickname = "Bobby"
            })
        }

        func names(_ chain: FetchChainBuilder<Person>) throws -> [String] {
            try stack.fetchAll(chain.orderBy(.ascending(\.$name))).map(\.name)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func comparisonOperators(_ kind: StoreKind) throws {
        let names = try Fixture(kind).names
        #expect(try names(From<Person>().where(\.$age == 25)) == ["Bob", "Dee"])
        #expect(try names(From<Person>().where(\.$age != 25)) == ["Ann", "Cid", "Eve"])
        #expect(try names(From<Person>().where(\.$age < 25)) == ["Eve"])
        #expect(try names(From<Person>().where(\.$age <= 25)) == ["Bob", "Dee", "Eve"])
        #expect(try names(From<Person>().where(\.$age > 31)) == ["Cid"])
        #expect(try names(From<Person>().where(\.$age >= 31)) == ["Ann", "Cid"])
        #expect(try names(From<Person>().where(\.$name > "Cid")) == ["Dee", "Eve"])
    }

    @Test(arguments: StoreKind.allCases)
    func inOperatorInBothSpellings(_ kind: StoreKind) throws {
        let names = try Fixture(kind).names
        #expect(try names(From<Person>().where(\.$age ~= [19, 40])) == ["Cid", "Eve"])
        #expect(try names(From<Person>().where(["Ann", "Zed"] ~= \.$name)) == ["Ann"])
        #expect(try names(From<Person>().where(\.$age ~= [Int]())) == [])
    }

    @Test(arguments: StoreKind.allCases)
    func nilComparisons(_ kind: StoreKind) throws {
        let names = try Fixture(kind).names
        #expect(try names(From<Person>().where(\.$nickname == nil)) == ["Ann", "Cid", "Dee", "Eve"])
        #expect(try names(From<Person>().where(\.$nickname != nil)) == ["Bob"])
        #expect(try names(From<Person>().where(\.$nickname > "A")) == ["Bob"], "ordering never matches nil")
    }

    @Test(arguments: StoreKind.allCases)
    func logicalOperators(_ kind: StoreKind) throws {
        let names = try Fixture(kind).names
        #expect(try names(From<Person>().where(\.$age > 20 && \.$age < 35)) == ["Ann", "Bob", "Dee"])
        #expect(try names(From<Person>().where(\.$age < 20 || \.$name == "Cid")) == ["Cid", "Eve"])
        #expect(try names(From<Person>().where(!(\.$age == 25))) == ["Ann", "Cid", "Eve"])
        #expect(try names(From<Person>().where(Where(true))) == ["Ann", "Bob", "Cid", "Dee", "Eve"])
        #expect(try names(From<Person>().where(Where(false))) == [])
        #expect(try names(From<Person>().where(\.$age == 25).where(\.$name == "Dee")) == ["Dee"], "chained filters combine by AND")
    }

    @Test(arguments: StoreKind.allCases)
    func sortingBySeveralKeysAndCombinedOrderBy(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        let byAgeThenName = try stack.fetchAll(From<Person>().orderBy(.descending(\.$age), .ascending(\.$name))).map(\.name)
        #expect(byAgeThenName == ["Cid", "Ann", "Bob", "Dee", "Eve"])
        var order = OrderBy<Person>(.ascending(\.$age))
        order += OrderBy(.descending(\.$name))
        #expect(try stack.fetchAll(From<Person>(), order).map(\.name) == ["Eve", "Dee", "Bob", "Ann", "Cid"])
        let combined = OrderBy<Person>(.ascending("age")) + OrderBy(.ascending("name"))
        #expect(try stack.fetchAll(From<Person>(), combined).map(\.name) == ["Eve", "Bob", "Dee", "Ann", "Cid"])
        let nilFirst = try stack.fetchAll(From<Person>().orderBy(.ascending(\.$nickname), .ascending(\.$name))).map(\.name)
        #expect(nilFirst == ["Ann", "Cid", "Dee", "Eve", "Bob"])
    }

    @Test(arguments: StoreKind.allCases)
    func limitAndOffset(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        let page = try stack.fetchAll(From<Person>().orderBy(.ascending(\.$name)).tweak { $0.fetchLimit = 2; $0.fetchOffset = 1 })
        #expect(page.map(\.name) == ["Bob", "Cid"])
        let beyond = try stack.fetchAll(From<Person>().tweak { $0.fetchOffset = 10 })
        #expect(beyond.isEmpty)
        #expect(try stack.fetchCount(From<Person>().tweak { $0.fetchLimit = 3 }) == 3)
    }

    @Test(arguments: StoreKind.allCases)
    func fetchOneCountAndObjectIDs(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        let first = try stack.fetchOne(From<Person>().orderBy(.descending(\.$age)))
        #expect(first?.name == "Cid")
        #expect(try stack.fetchOne(From<Person>().where(\.$age > 100)) == nil)
        #expect(try stack.fetchCount(From<Person>().where(\.$age == 25)) == 2)
        let ids = try stack.fetchObjectIDs(From<Person>().orderBy(.ascending(\.$age), .ascending(\.$name)))
        #expect(ids.count == 5)
        let youngest: Person? = stack.fetchExisting(ids[0])
        #expect(youngest?.name == "Eve")
        let id = try stack.fetchObjectID(From<Person>().where(\.$name == "Dee"))
        #expect(id.flatMap { stack.fetchExisting($0) as Person? }?.age == 25)
        #expect(try stack.fetchObjectID(From<Person>().where(\.$name == "Nobody")) == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func variadicClauseForm(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        let people = try stack.fetchAll(From<Person>(), \Person.$age == 25, OrderBy<Person>(.descending(\.$name)), Tweak { $0.fetchLimit = 1 })
        #expect(people.map(\.name) == ["Dee"])
        #expect(try stack.fetchCount(From<Person>(), \Person.$age > 30) == 2)
        #expect(try stack.fetchObjectIDs(From<Person>(), \Person.$age > 30).count == 2)
        #expect(try stack.fetchOne(From<Person>(), \Person.$name == "Eve")?.age == 19)
    }

    @Test(arguments: StoreKind.allCases)
    func fetchesReturnTheSameInstanceForTheSameObject(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        let a = try #require(try stack.fetchOne(From<Person>().where(\.$name == "Ann")))
        let b = try #require(try stack.fetchOne(From<Person>().where(\.$age == 31)))
        #expect(a === b)
    }

    @Test(arguments: StoreKind.allCases)
    func transactionFetchesIncludePendingChangesUnlessTweaked(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        try stack.perform(synchronous: { transaction in
            transaction.create(Into<Person>()).name = "New"
            let bob = try #require(try transaction.fetchOne(From<Person>().where(\.$name == "Bob")))
            bob.age = 99
            let eve = try #require(try transaction.fetchOne(From<Person>().where(\.$name == "Eve")))
            transaction.delete(eve)

            let withPending = try transaction.fetchAll(From<Person>().orderBy(.ascending(\.$name))).map(\.name)
            #expect(withPending == ["Ann", "Bob", "Cid", "Dee", "New"])
            let old = try transaction.fetchAll(From<Person>().where(\.$age > 50)).map(\.name)
            #expect(old == ["Bob"])
            let committedOnly = try transaction.fetchAll(From<Person>().orderBy(.ascending(\.$name)).tweak { $0.includesPendingChanges = false }).map(\.name)
            #expect(committedOnly == ["Ann", "Bob", "Cid", "Dee", "Eve"])
            let count = try transaction.fetchCount(From<Person>())
            #expect(count == 5)
            let window = try transaction.fetchAll(From<Person>().orderBy(.descending(\.$age)).tweak { $0.fetchLimit = 2 }).map(\.name)
            #expect(window == ["Bob", "Cid"])
        })
        #expect(try stack.fetchCount(From<Person>()) == 5)
    }

    /// Commits a dog named Rex and a cat named Tom.
    func insertRexAndTom(_ stack: DataStack) throws {
        try stack.perform(synchronous: { transaction in
            transaction.create(Into<Dog>()).name = "Rex"
            transaction.create(Into<Cat>()).name = "Tom"
        })
    }

    @Test(arguments: StoreKind.allCases)
    func abstractEntityFetchReturnsSubEntityInstances(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        try insertRexAndTom(stack)
        let animals = try stack.fetchAll(From<Animal>().orderBy(.ascending(\.$name)))
        #expect(animals.map(\.name) == ["Rex", "Tom"])
        #expect(animals[0] is Dog)
        #expect(animals[1] is Cat)
        #expect(try stack.fetchCount(From<Animal>().where(\.$name == "Tom")) == 1)
        let onlyAnimals = try stack.fetchAll(From<Animal>().tweak { $0.includesSubentities = false })
        #expect(onlyAnimals.isEmpty)
        #expect(try stack.fetchAll(From<Cat>()).map(\.lives) == [9])
    }

    @Test(arguments: StoreKind.allCases)
    func fromWithASubclassReadsOnlyThatEntity(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        try insertRexAndTom(stack)
        // Typed as the parent class, read from the subclass's entity (CoreStore's `entityClass`).
        let dogs: [Animal] = try stack.fetchAll(From<Animal>(Dog.self))
        #expect(dogs.map(\.name) == ["Rex"])
        #expect(dogs.allSatisfy { $0 is Dog })
        #expect(From<Animal>(Dog.self).entityClass == Dog.self)
        #expect(From<Animal>().entityClass == Animal.self)
        #expect(try stack.fetchCount(From<Animal>(Cat.self)) == 1)
        #expect(try stack.fetchAll(From<Animal>(Cat.self, [nil])).map(\.name) == ["Tom"])
        let inTransaction = try stack.perform(synchronous: { transaction in
            try transaction.fetchAll(From<Animal>(Dog.self)).map(\.name)
        })
        #expect(inTransaction == ["Rex"])
    }

    @Test(arguments: StoreKind.allCases)
    func fetchingFromManyThreadsAtOnce(_ kind: StoreKind) async throws {
        let stack = try Fixture(kind).stack
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<16 {
                group.addTask {
                    if i.isMultiple(of: 4) {
                        try stack.perform(synchronous: { $0.create(Into<Person>()).name = "T\(i)" })
                    }
                    return try stack.fetchAll(From<Person>().where(\.$age >= 0)).filter { $0.name.count >= 1 }.count
                }
            }
            var all: [Int] = []
            for try await count in group { all.append(count) }
            return all
        }
        #expect(counts.allSatisfy { $0 >= 5 && $0 <= 9 })
        #expect(try stack.fetchCount(From<Person>()) == 9)
    }
}

@Suite("Bad fetch input")
struct BadFetchTests {
    @Test(arguments: StoreKind.allCases)
    func unknownSortKeyThrows(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        #expect(throws: CoreStoreError.self) {
            try stack.fetchAll(From<Person>(), OrderBy<Person>(.ascending("noSuchKey")))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func unknownPredicateKeyThrowsEvenOnAnEmptyStore(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        #expect {
            try stack.fetchAll(From<Person>(), Where<Person>(.comparison(.init("noSuchKey", .equal, .int(1)))))
        } throws: { error in
            guard case CoreStoreError.invalidPredicate(let message) = error else { return false }
            return message.contains("noSuchKey")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func fetchingAClassThatIsNotAnEntityThrows(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        #expect {
            try stack.fetchAll(From<AllTypes>())
        } throws: { error in
            guard case CoreStoreError.unknownEntity = error else { return false }
            return true
        }
    }

    @Test func fetchingBeforeAnyStoreIsAddedThrows() throws {
        let stack = DataStack(makeSchema())
        #expect {
            try stack.fetchCount(From<Person>())
        } throws: { error in
            guard case CoreStoreError.persistentStoreNotFound(let entity, _) = error else { return false }
            return entity == "Person"
        }
    }
}
