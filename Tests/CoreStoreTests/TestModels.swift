import Foundation
@testable import CoreStore

class Animal: CoreStoreObject {
    @Field.Stored("species") var species: String = ""
    @Field.Stored("name") var name: String = ""
}

final class Dog: Animal {
    @Field.Stored("tag", dynamicInitialValue: { UUID() }) var tag: UUID
    @Field.Relationship("master") var master: Person?
}

final class Cat: Animal {
    @Field.Stored("lives") var lives: Int = 9
}

enum Mood: String, FieldStorableType {
    case happy, grumpy
}

final class Person: CoreStoreObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("age") var age: Int = 0
    @Field.Stored("nickname") var nickname: String?
    @Field.Stored("mood") var mood: Mood = .happy
    @Field.Coded("tags", coder: FieldCoders.Json.self) var tags: [String] = []
    @Field.Virtual("displayName", customGetter: Person.displayName(of:)) var displayName: String
    @Field.Relationship("pets", inverse: \Dog.$master, deleteRule: .cascade) var pets: Set<Dog>
    @Field.Relationship("friends") var friends: [Person]

    static func displayName(of person: Person) -> String { "\(person.name) (\(person.age))" }
}

func makeSchema(versionLock: VersionLock? = nil) -> CoreStoreSchema {
    CoreStoreSchema(
        modelVersion: "V1",
        entities: [
            Entity<Animal>("Animal", isAbstract: true),
            Entity<Dog>("Dog"),
            Entity<Cat>("Cat"),
            Entity<Person>("Person", indexes: [[\Person.$name]]),
        ],
        versionLock: versionLock
    )
}

/// A stack with the test model on a new, empty store of the given kind.
func makeStack(_ kind: StoreKind) throws -> DataStack {
    let stack = DataStack(makeSchema())
    try stack.addStorageAndWait(kind.makeStore())
    return stack
}
