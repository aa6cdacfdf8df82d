import Foundation
import CoreStoreStorage
import CoreStoreInMemory

/// A small schema: abstract Animal with Dog and Cat; Person with a unique "email" and a
/// to-many "pets" whose inverse is Dog.owner.
enum Fixtures {
    static let schema = StoreSchema(modelVersion: "T1", schemaHash: "hash-t1", entities: [
        EntityDescription(name: "Animal", isAbstract: true, attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false),
        ], uniqueConstraints: [["name"]]),
        EntityDescription(name: "Dog", parentName: "Animal", attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "weight", type: .double, isOptional: true),
        ], relationships: [
            RelationshipDescription(name: "owner", kind: .toOne, destinationEntity: "Person", inverseName: "pets"),
        ]),
        EntityDescription(name: "Cat", parentName: "Animal", attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false),
        ]),
        EntityDescription(name: "Person", attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "age", type: .integer, isOptional: true),
            AttributeDescription(name: "email", type: .string, isOptional: true),
        ], relationships: [
            RelationshipDescription(name: "pets", kind: .toManyUnordered, destinationEntity: "Dog", inverseName: "owner"),
        ], uniqueConstraints: [["email"]]),
    ])

    static func person(_ key: Int64, _ name: String, age: Int64?, email: String? = nil, pets: [RecordID] = []) -> Record {
        Record(
            id: RecordID(entity: "Person", key: key),
            attributes: [.string(name), age.map(Value.int) ?? .null, email.map(Value.string) ?? .null],
            relationships: [pets]
        )
    }

    static func dog(_ key: Int64, _ name: String, weight: Double? = nil, owner: RecordID? = nil) -> Record {
        Record(id: RecordID(entity: "Dog", key: key), attributes: [.string(name), weight.map(Value.double) ?? .null], relationships: [owner.map { [$0] } ?? []])
    }

    static func cat(_ key: Int64, _ name: String) -> Record {
        Record(id: RecordID(entity: "Cat", key: key), attributes: [.string(name)], relationships: [])
    }

    /// An open in-memory store.
    static func store() throws -> InMemoryStore {
        let store = InMemoryStore()
        _ = try store.open(schema: schema)
        return store
    }
}
