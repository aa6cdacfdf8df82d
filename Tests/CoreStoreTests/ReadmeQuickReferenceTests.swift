import Foundation
import Testing
@testable import CoreStore

/// The "Fetching and querying" snippet of our README, as written there.
@Suite("README: quick reference")
struct ReadmeQuickReferenceTests {
    @Test(arguments: StoreKind.allCases)
    func fetchingAndQueryingSnippet(_ kind: StoreKind) throws {
        let dataStack = try makeStack(kind)
        try dataStack.perform(synchronous: { transaction in
            let john = transaction.create(Into<Person>())
            john.name = "John Smith"
            john.age = 42
            let joe = transaction.create(Into<Person>())
            joe.name = "joe"
            joe.age = 31
            let rex = transaction.create(Into<Dog>())
            rex.name = "Rex"
            rex.master = john
            let fido = transaction.create(Into<Dog>())
            fido.name = "Fido"
            fido.master = john
        })
        let person = try #require(try dataStack.fetchOne(From<Person>().where(\.$name == "John Smith")))

        #expect(try dataStack.fetchAll(From<Dog>().where((\.$master ~ \.$name) == "John Smith")).count == 2)
        #expect(try dataStack.fetchAll(From<Person>().where((\.$pets ~ \.$name).any() == "Rex")).map(\.name) == ["John Smith"])
        #expect(try dataStack.fetchAll(From<Person>().where((\Person.$pets).count() >= 2)).map(\.name) == ["John Smith"])
        #expect(try dataStack.fetchAll(From<Dog>().where(\.$master == person)).count == 2)
        #expect(try dataStack.fetchAll(From<Person>().where(Where(\.$name, hasPrefix: "jo", options: .caseInsensitive))).count == 2)

        #expect(try dataStack.fetchAll(From<Person>(), Where<Person>("age > %d AND name BEGINSWITH[cd] %@", 30, "jo")).count == 2)
        #expect(try dataStack.fetchAll(From<Person>().where(format: "ANY pets.name IN %@ OR pets.@count == 0", ["Rex", "Fido"])).count == 2)

        let oldest = try dataStack.queryValue(From<Person>().select(Int.self, .maximum(\.$age)))
        #expect(oldest == 42)
        let byAge = try dataStack.queryAttributes(
            From<Person>().select(NSDictionary.self, .attribute(\.$age), .count(\.$age, as: "count")).groupBy(\.$age)
        )
        #expect(byAge.map { $0["age"] as? Int } == [31, 42])
        #expect(byAge.map { $0["count"] as? Int } == [1, 1])
    }
}
