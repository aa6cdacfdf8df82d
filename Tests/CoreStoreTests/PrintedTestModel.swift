import Foundation
import CoreStore

/// What `printCoreStoreSchema()` prints for the test model (`makeSchema()`), pasted as a user
/// would paste it, in a namespace: it must compile and declare the same stored model.
enum PrintedTestModel {
    class Animal: CoreStoreObject {
        @Field.Stored("species") var species: String = ""
        @Field.Stored("name") var name: String = ""
    }

    final class Person: CoreStoreObject {
        @Field.Stored("name") var name: String = ""
        @Field.Stored("age") var age: Int = 0
        @Field.Stored("nickname") var nickname: String?
        @Field.Stored("mood") var mood: String = "happy"
        @Field.Stored("tags") var tags: Data?
        @Field.Relationship("pets", deleteRule: .cascade) var pets: Set<Dog>
        @Field.Relationship("friends") var friends: [Person]
        // "displayName" is a virtual field (not stored): declare it with its customGetter.
    }

    final class Dog: Animal {
        // "tag" had a dynamic initial value: give its closure as dynamicInitialValue.
        @Field.Stored("tag") var tag: UUID = UUID()
        @Field.Relationship("master", inverse: \Person.$pets) var master: Person?
    }

    final class Cat: Animal {
        @Field.Stored("lives") var lives: Int = 9
    }

    static let schema = CoreStoreSchema(
        modelVersion: "V1",
        entities: [
            Entity<Animal>("Animal", isAbstract: true),
            Entity<Person>("Person", indexes: [[\Person.$name]]),
            Entity<Dog>("Dog"),
            Entity<Cat>("Cat"),
        ]
    )
}
