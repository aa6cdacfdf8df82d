import CoreStore
import Foundation

/// The demo's model: people and their pets, with an abstract `Animal` parent (and the books of
/// the import section, in `DemoBook.swift`).
class DemoAnimal: CoreStoreObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("born", dynamicInitialValue: { Date() }) var born: Date
}

final class DemoDog: DemoAnimal {
    @Field.Stored("breed") var breed: String?
    @Field.Relationship("owner") var owner: DemoPerson?
}

final class DemoCat: DemoAnimal {
    @Field.Stored("lives") var lives: Int = 9
}

final class DemoPerson: CoreStoreObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("age") var age: Int = 0
    @Field.Stored("city") var city: String?
    @Field.Relationship("dogs", inverse: \DemoDog.$owner, deleteRule: .cascade) var dogs: [DemoDog]
}

enum DemoModel {
    static let schema = CoreStoreSchema(
        modelVersion: "Demo2",
        entities: [
            Entity<DemoAnimal>("Animal", isAbstract: true),
            Entity<DemoDog>("Dog"),
            Entity<DemoCat>("Cat"),
            Entity<DemoPerson>("Person", indexes: [[\DemoPerson.$name]]),
            Entity<DemoBook>("Book", uniqueConstraints: [[\DemoBook.$isbn]]),
        ],
        versionLock: [
            "Animal": [0x1f4ca5a8629f7417, 0x9878e3aac5f4c876, 0xb902c0b49a97ed6b, 0x35448af18b028f5e],
            "Book": [0x8d6c21d3a6e9ced0, 0xc13a41810a9f6ca5, 0x2eedfe9f2cf6a6b3, 0xc88d26d644c62fd4],
            "Cat": [0x2d3537fb2d9e025d, 0x9fb5a2644ed45579, 0x14b668a29ba158fc, 0xef131d9f559b915f],
            "Dog": [0x4675021e48b3faa7, 0x59aec5b359efe964, 0x42b5bf67648f2079, 0x8ce57c078ee3d331],
            "Person": [0x3bd296e1ff0d9fd4, 0x16f02b8308e9bf37, 0x3218bbb257962033, 0x9530b2a02ca926d0],
        ]
    )
}
