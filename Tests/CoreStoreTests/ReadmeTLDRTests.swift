import Foundation
import Testing
import CoreStore

// The README's quick start, written as a test: if this stops compiling or passing, the README
// is wrong.
final class ReadmeDog: CoreStoreObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("master") var master: ReadmePerson?
}

final class ReadmePerson: CoreStoreObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("age") var age: Int = 0
    @Field.Relationship("pets", inverse: \ReadmeDog.$master) var pets: Set<ReadmeDog>
}

@Test(arguments: StoreKind.allCases)
func readmeQuickStart(_ kind: StoreKind) async throws {
    let dataStack = DataStack(
        CoreStoreSchema(
            modelVersion: "V1",
            entities: [Entity<ReadmePerson>("Person"), Entity<ReadmeDog>("Dog")]
        )
    )
    try dataStack.addStorageAndWait(kind.makeStore())

    try await dataStack.async.perform { transaction in
        let person = transaction.create(Into<ReadmePerson>())
        person.name = "John Smith"
        person.age = 42
        let dog = transaction.create(Into<ReadmeDog>())
        dog.name = "Rex"
        dog.master = person
    }

    let people = try dataStack.fetchAll(
        From<ReadmePerson>()
            .where(\.$age > 30)
            .orderBy(.ascending(\.$name), .descending(\.$age))
            .tweak { $0.includesPendingChanges = false }
    )
    #expect(people.map(\.name) == ["John Smith"])
    #expect(people.first?.pets.map(\.name) == ["Rex"])

    let result: Result<Void, CoreStoreError> = await withCheckedContinuation { continuation in
        dataStack.perform(
            asynchronous: { transaction in
                let john = try transaction.fetchOne(From<ReadmePerson>().where(\.$name == "John Smith"))
                john?.age += 1
            },
            completion: { continuation.resume(returning: $0) }
        )
    }
    #expect(throws: Never.self) { try result.get() }
    #expect(try dataStack.fetchOne(From<ReadmePerson>())?.age == 43)
}
