import Foundation
import Testing
@testable import CoreStore

/// The model the "Fetching and Querying" section of CoreStore's documentation uses.
final class MyPersonEntity: CoreStoreObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("surname") var surname: String = ""
    @Field.Stored("age") var age: Int = 0
    @Field.Stored("gender") var gender: String = ""
    @Field.Stored("rating") var rating: Double = 0
}

/// Each example of the documentation's "Fetching" part, as written there with key paths spelled
/// `\.$field` (fields are property wrappers here) and `Select` spelled `Select<O, T>`.
@Suite("README: fetching")
struct ReadmeFetchingTests {
    /// Four people, on a store of the given kind.
    struct Fixture {
        let dataStack: DataStack

        init(_ kind: StoreKind) throws {
            dataStack = DataStack(CoreStoreSchema(modelVersion: "V1", entities: [Entity<MyPersonEntity>("MyPersonEntity")]))
            try dataStack.addStorageAndWait(kind.makeStore())
            try dataStack.perform(synchronous: { transaction in
                for (name, surname, age, gender, rating) in [
                    ("John", "Smith", 30, "M", 4.5), ("Jane", "Doe", 22, "F", 4.9), ("Jim", "Beam", 45, "M", 3.0), ("Ann", "Lee", 28, "F", 4.5),
                ] as [(String, String, Int, String, Double)] {
                    let person = transaction.create(Into<MyPersonEntity>())
                    person.name = name
                    person.surname = surname
                    person.age = age
                    person.gender = gender
                    person.rating = rating
                }
            })
        }
    }

    @Test(arguments: StoreKind.allCases)
    func fromClause(_ kind: StoreKind) throws {
        let dataStack = try Fixture(kind).dataStack
        let people = try dataStack.fetchAll(From<MyPersonEntity>())
        #expect(people.count == 4)
        #expect(try dataStack.fetchAll(From<MyPersonEntity>(nil)).count == 4, "nil names the store without configuration")
    }

    @Test(arguments: StoreKind.allCases)
    func whereClauses(_ kind: StoreKind) throws {
        let dataStack = try Fixture(kind).dataStack
        var people = try dataStack.fetchAll(
            From<MyPersonEntity>(),
            Where<MyPersonEntity>("%K > %d", "age", 30)
        )
        #expect(people.map(\.name) == ["Jim"])
        people = try dataStack.fetchAll(
            From<MyPersonEntity>(),
            Where<MyPersonEntity>("%K >= %d", "age", 28)
        )
        #expect(Set(people.map(\.name)) == ["John", "Jim", "Ann"])
        people = try dataStack.fetchAll(
            From<MyPersonEntity>(),
            Where<MyPersonEntity>(true)
        )
        #expect(people.count == 4)
        people = try dataStack.fetchAll(
            From<MyPersonEntity>()
                .where(\.$age > 25)
        )
        #expect(Set(people.map(\.name)) == ["John", "Jim", "Ann"])
        people = try dataStack.fetchAll(
            From<MyPersonEntity>()
                .where(\.$age > 25 && \.$gender == "M")
        )
        #expect(people.map(\.name) == ["John", "Jim"])
    }

    @Test(arguments: StoreKind.allCases)
    func orderByClauses(_ kind: StoreKind) throws {
        let dataStack = try Fixture(kind).dataStack
        var mostValuablePeople = try dataStack.fetchAll(
            From<MyPersonEntity>(),
            OrderBy<MyPersonEntity>(.descending("rating"), .ascending("surname"))
        )
        #expect(mostValuablePeople.map(\.surname) == ["Doe", "Lee", "Smith", "Beam"])
        let people = try dataStack.fetchAll(
            From<MyPersonEntity>()
                .orderBy(.descending(\.$rating), .ascending(\.$surname))
        )
        #expect(people.map(\.surname) == ["Doe", "Lee", "Smith", "Beam"])

        for sortFromYoungest in [false, true] {
            var orderBy = OrderBy<MyPersonEntity>(.descending(\.$rating))
            if sortFromYoungest {
                orderBy += OrderBy(.ascending(\.$age))
            }
            mostValuablePeople = try dataStack.fetchAll(
                From<MyPersonEntity>(),
                orderBy
            )
            // John and Ann share a rating: the age key puts Ann (28) first, otherwise the earlier saved John.
            #expect(mostValuablePeople.map(\.name) == (sortFromYoungest ? ["Jane", "Ann", "John", "Jim"] : ["Jane", "John", "Ann", "Jim"]))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func tweakClauses(_ kind: StoreKind) throws {
        let dataStack = try Fixture(kind).dataStack
        var people = try dataStack.fetchAll(
            From<MyPersonEntity>(),
            Where<MyPersonEntity>("age > %d", 25),
            OrderBy<MyPersonEntity>(.ascending("surname")),
            Tweak { fetchRequest in
                fetchRequest.includesPendingChanges = false
                fetchRequest.includesSubentities = false
            }
        )
        #expect(people.map(\.surname) == ["Beam", "Lee", "Smith"])
        people = try dataStack.fetchAll(
            From<MyPersonEntity>()
                .where(\.$age > 25)
                .orderBy(.ascending(\.$surname))
                .tweak {
                    $0.includesPendingChanges = false
                    $0.includesSubentities = false
                }
        )
        #expect(people.map(\.surname) == ["Beam", "Lee", "Smith"])
    }

    @Test(arguments: StoreKind.allCases)
    func theFiveFetchMethods(_ kind: StoreKind) throws {
        let dataStack = try Fixture(kind).dataStack
        let chain = From<MyPersonEntity>().where(\.$gender == "F").orderBy(.ascending(\.$age))
        #expect(try dataStack.fetchAll(chain).map(\.name) == ["Jane", "Ann"])
        #expect(try dataStack.fetchOne(chain)?.name == "Jane")
        #expect(try dataStack.fetchCount(chain) == 2)
        let ids = try dataStack.fetchObjectIDs(chain)
        #expect(ids.count == 2)
        #expect(try dataStack.fetchObjectID(chain) == ids.first)
        #expect((dataStack.fetchExisting(ids[1]) as MyPersonEntity?)?.name == "Ann")
    }

    @Test(arguments: StoreKind.allCases)
    func queryingExamples(_ kind: StoreKind) throws {
        let dataStack = try Fixture(kind).dataStack
        let johnsAge = try dataStack.queryValue(
            From<MyPersonEntity>(),
            Select<MyPersonEntity, Int>("age"),
            Where<MyPersonEntity>("name == %@", "John")
        )
        #expect(johnsAge == 30)
        let chained = try dataStack.queryValue(
            From<MyPersonEntity>()
                .select(\.$age)
                .where(\.$name == "John")
        )
        #expect(chained == 30)
        let oldestAge = try dataStack.queryValue(
            From<MyPersonEntity>(),
            Select<MyPersonEntity, Int>(.maximum("age"))
        )
        #expect(oldestAge == 45)
        let allAges = try dataStack.queryAttributes(
            From<MyPersonEntity>(),
            Select<MyPersonEntity, NSDictionary>("age")
        )
        #expect(allAges.compactMap { $0["age"] as? Int } == [30, 22, 45, 28])
    }
}
