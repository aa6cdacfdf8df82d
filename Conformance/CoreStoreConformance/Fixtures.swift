import Foundation
import CoreStoreStorage

/// The schema and records the contract-level cases use.
///
/// - `Sample`: one optional attribute of every storage type.
/// - `Person`: name, age, email (unique), score; `pets` (unordered, inverse `owner`) and
///   `friends` (ordered, no inverse).
/// - `Pet` ← `Dog`: name, tag (unique, declared on Pet), weight; `owner`; Dog adds `breed`.
/// - `Code`: a compound unique constraint on (a, b).
public enum Fixtures {
    /// The schema every contract case opens its stores with.
    public static let schema = makeSchema(hash: "conformance-hash-1")

    /// A schema that differs only in its hash, to simulate a changed model.
    public static let otherSchema = makeSchema(hash: "conformance-hash-2")

    static let sampleKeys = ["flag", "int", "dbl", "dec", "str", "data", "date", "uuid", "url"]

    static func makeSchema(hash: String) -> StoreSchema {
        let petAttributes = [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "tag", type: .integer, isOptional: true),
            AttributeDescription(name: "weight", type: .double, isOptional: true),
        ]
        let owner = RelationshipDescription(name: "owner", kind: .toOne, destinationEntity: "Person", inverseName: "pets")
        let sampleTypes: [AttributeType] = [.bool, .integer, .double, .decimal, .string, .bytes, .date, .uuid, .url]
        return StoreSchema(modelVersion: "V1", schemaHash: hash, entities: [
            EntityDescription(name: "Sample", attributes: zip(sampleKeys, sampleTypes).map {
                AttributeDescription(name: $0.0, type: $0.1, isOptional: true)
            }),
            EntityDescription(name: "Person", attributes: [
                AttributeDescription(name: "name", type: .string, isOptional: false, isIndexed: true),
                AttributeDescription(name: "age", type: .integer, isOptional: true, isIndexed: true),
                AttributeDescription(name: "email", type: .string, isOptional: true),
                AttributeDescription(name: "score", type: .double, isOptional: true),
            ], relationships: [
                RelationshipDescription(name: "pets", kind: .toManyUnordered, destinationEntity: "Pet", inverseName: "owner"),
                RelationshipDescription(name: "friends", kind: .toManyOrdered, destinationEntity: "Person", inverseName: nil),
            ], indexes: [["name", "age"]], uniqueConstraints: [["email"]]),
            EntityDescription(name: "Pet", attributes: petAttributes, relationships: [owner], uniqueConstraints: [["tag"]]),
            EntityDescription(name: "Dog", parentName: "Pet", attributes: petAttributes + [
                AttributeDescription(name: "breed", type: .string, isOptional: true, isIndexed: true),
            ], relationships: [owner]),
            EntityDescription(name: "Code", attributes: [
                AttributeDescription(name: "a", type: .string, isOptional: true),
                AttributeDescription(name: "b", type: .integer, isOptional: true),
            ], uniqueConstraints: [["a", "b"]]),
        ])
    }

    static func id(_ entity: String, _ key: Int64) -> RecordID { RecordID(entity: entity, key: key) }

    static func sample(_ key: Int64, _ values: [String: Value]) -> Record {
        Record(id: id("Sample", key), attributes: sampleKeys.map { values[$0] ?? .null }, relationships: [])
    }

    static func person(
        _ key: Int64, _ name: String, age: Int64? = nil, email: String? = nil, score: Double? = nil,
        pets: [RecordID] = [], friends: [RecordID] = []
    ) -> Record {
        Record(id: id("Person", key),
               attributes: [.string(name), age.map(Value.int) ?? .null, email.map(Value.string) ?? .null, score.map(Value.double) ?? .null],
               relationships: [pets, friends])
    }

    static func pet(_ key: Int64, _ name: String, tag: Int64? = nil, weight: Double? = nil, owner: RecordID? = nil) -> Record {
        Record(id: id("Pet", key), attributes: [.string(name), tag.map(Value.int) ?? .null, weight.map(Value.double) ?? .null],
               relationships: [owner.map { [$0] } ?? []])
    }

    static func dog(_ key: Int64, _ name: String, tag: Int64? = nil, weight: Double? = nil, breed: String? = nil, owner: RecordID? = nil) -> Record {
        Record(id: id("Dog", key),
               attributes: [.string(name), tag.map(Value.int) ?? .null, weight.map(Value.double) ?? .null, breed.map(Value.string) ?? .null],
               relationships: [owner.map { [$0] } ?? []])
    }

    static func code(_ key: Int64, _ a: String?, _ b: Int64?) -> Record {
        Record(id: id("Code", key), attributes: [a.map(Value.string) ?? .null, b.map(Value.int) ?? .null], relationships: [])
    }

    /// A small world of people and pets with every kind of value the predicates and sorts need:
    /// nil, equal values, case and diacritic variants, NaN, -0.0, empty relationships.
    static func world() -> [Record] {
        let p = (1...10).map { id("Person", -Int64($0)) }
        let q = (1...9).map { id("Pet", -Int64(100 + $0)) }
        let d = (1...5).map { id("Dog", -Int64(200 + $0)) }
        return [
            person(-1, "Ann", age: 31, email: "ann@x", score: 1.5, pets: [q[0], q[1], d[0]], friends: [p[1], p[2]]),
            person(-2, "Bob", age: 25, email: "bob@x", score: -0.0, pets: [q[2]], friends: [p[0]]),
            person(-3, "ann", age: 31, email: nil, score: .nan, pets: [], friends: []),
            person(-4, "Zoë", age: nil, email: "zoe@x", score: 0.0, pets: [d[1], d[2]], friends: [p[0], p[1], p[2]]),
            person(-5, "Zoe\u{301}", age: 40, email: "ZOE@x", score: nil, pets: [q[3]]),
            person(-6, "", age: 0, email: "", score: .infinity, pets: []),
            person(-7, "ÉMILE", age: -5, email: "emile@y", score: -.infinity, pets: [q[4], d[3]]),
            person(-8, "bob", age: 25, email: "bob2@x", score: 2.5, pets: [q[5]]),
            person(-9, "Cy\u{0}z", age: Int64.max, email: nil, score: 1e300),
            person(-10, "Dee", age: Int64.min, email: "dee@x", score: 2.5, pets: [d[4]]),
            pet(-101, "Rex", tag: 1, weight: 10, owner: p[0]),
            pet(-102, "rex", tag: 2, weight: 3.5, owner: p[0]),
            pet(-103, "Tom", tag: 3, weight: nil, owner: p[1]),
            pet(-104, "Kit", tag: nil, weight: 4, owner: p[4]),
            pet(-105, "Zed", tag: 5, weight: 0.5, owner: p[6]),
            pet(-106, "Ace", tag: 6, weight: 7, owner: p[7]),
            pet(-107, "Ghost", tag: 7, weight: 2, owner: nil),
            pet(-108, "Némo", tag: nil, weight: .nan, owner: nil),
            pet(-109, "Bo", tag: 9, weight: 1, owner: nil),
            dog(-201, "Fido", tag: 11, weight: 20, breed: "lab", owner: p[0]),
            dog(-202, "Rex", tag: 12, weight: 8, breed: "pug", owner: p[3]),
            dog(-203, "Max", tag: 13, weight: 30, breed: nil, owner: p[3]),
            dog(-204, "Lassie", tag: 14, weight: 25, breed: "collie", owner: p[6]),
            dog(-205, "Bo", tag: nil, weight: 12, breed: "lab", owner: p[9]),
        ]
    }
}
