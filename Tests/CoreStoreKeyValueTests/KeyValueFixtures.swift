import Foundation
import CoreStoreStorage
import CoreStoreKeyValue

/// Person (indexed name and age, compound (name, age), unique email, to-many pets) and
/// Pet ← Dog (unique tag declared on Pet, to-one owner, Dog adds an indexed breed).
enum KV {
    static let schema = StoreSchema(modelVersion: "V1", schemaHash: "kv-hash-1", entities: [
        EntityDescription(name: "Person", attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false, isIndexed: true),
            AttributeDescription(name: "age", type: .integer, isOptional: true, isIndexed: true),
            AttributeDescription(name: "email", type: .string, isOptional: true),
            AttributeDescription(name: "score", type: .double, isOptional: true, isIndexed: true),
        ], relationships: [
            RelationshipDescription(name: "pets", kind: .toManyUnordered, destinationEntity: "Pet", inverseName: "owner"),
        ], indexes: [["name", "age"]], uniqueConstraints: [["email"]]),
        EntityDescription(name: "Pet", attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "tag", type: .integer, isOptional: true),
            AttributeDescription(name: "weight", type: .double, isOptional: true),
        ], relationships: [
            RelationshipDescription(name: "owner", kind: .toOne, destinationEntity: "Person", inverseName: "pets"),
        ], uniqueConstraints: [["tag"]]),
        EntityDescription(name: "Dog", parentName: "Pet", attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "tag", type: .integer, isOptional: true),
            AttributeDescription(name: "weight", type: .double, isOptional: true),
            AttributeDescription(name: "breed", type: .string, isOptional: true, isIndexed: true),
        ], relationships: [
            RelationshipDescription(name: "owner", kind: .toOne, destinationEntity: "Person", inverseName: "pets"),
        ]),
    ])

    static func person(_ key: Int64, _ name: String, age: Int64? = nil, email: String? = nil, score: Double? = nil, pets: [RecordID] = []) -> Record {
        Record(id: RecordID(entity: "Person", key: key),
               attributes: [.string(name), age.map(Value.int) ?? .null, email.map(Value.string) ?? .null, score.map(Value.double) ?? .null],
               relationships: [pets])
    }

    static func pet(_ key: Int64, _ name: String, tag: Int64? = nil, owner: RecordID? = nil) -> Record {
        Record(id: RecordID(entity: "Pet", key: key), attributes: [.string(name), tag.map(Value.int) ?? .null, .null], relationships: [owner.map { [$0] } ?? []])
    }

    static func dog(_ key: Int64, _ name: String, tag: Int64? = nil, breed: String? = nil, owner: RecordID? = nil) -> Record {
        Record(id: RecordID(entity: "Dog", key: key), attributes: [.string(name), tag.map(Value.int) ?? .null, .null, breed.map(Value.string) ?? .null],
               relationships: [owner.map { [$0] } ?? []])
    }

    /// Forty people: ages 0–4 and `nil` (every seventh), names of seven kinds, scores 1–40.
    static func fortyPeople() -> [Record] {
        (1...40).map { (n: Int) -> Record in
            let age: Int64? = n % 7 == 0 ? nil : Int64(n % 5)
            return person(-Int64(n), "P\(n % 7)", age: age, score: Double(n))
        }
    }

    /// The layout of ``schema`` and the plan of the records `request` selects.
    static func plan(of request: AggregateRequest) throws -> (layout: KeyValueLayout, plan: FetchPlan) {
        let layout = KeyValueLayout(schema: schema)
        let plan = try FetchPlanner(layout: layout)
            .plan(FetchRequest(entity: request.entity, includesSubentities: request.includesSubentities, predicate: request.predicate))
        return (layout, plan)
    }

    /// What the integrity check of `storage` reports.
    static func integrityProblems(_ storage: KeyValueStorage<MemoryKeyValueStore>) throws -> [String] {
        var found: [String] = []
        _ = try storage.checkIntegrity { found.append($0) }
        return found
    }

    static func openStore(_ engine: MemoryKeyValueStore = MemoryKeyValueStore()) throws -> KeyValueStorage<MemoryKeyValueStore> {
        let storage = KeyValueStorage(engine: engine)
        _ = try storage.open(schema: schema)
        return storage
    }

    /// Every pair in the engine, to prove that nothing changed.
    static func dump(_ engine: MemoryKeyValueStore) throws -> [[[UInt8]]] {
        try engine.read { reader in
            var pairs: [[[UInt8]]] = []
            try reader.scan(from: [], to: [], reverse: false) { key, value in
                pairs.append([key, value])
                return true
            }
            return pairs
        }
    }
}
