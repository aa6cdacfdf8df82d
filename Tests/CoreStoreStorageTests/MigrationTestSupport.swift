import Foundation
@testable import CoreStoreStorage

/// A `StorageReader` over a dictionary of records: the reference semantics come from the core
/// (`pending: .all`), so the migration engine is tested without any engine.
struct DictionaryReader: StorageReader {
    let records: [Int64: Record]
    let schema: StoreSchema

    func records(_ ids: [RecordID]) throws -> [Record?] {
        ids.map { records[$0.key] }
    }

    func fetch(_ request: FetchRequest) throws -> FetchResult {
        let kinds = request.includesSubentities ? Set(schema.entityAndDescendants(request.entity)) : [request.entity]
        let selected = records.values.filter { kinds.contains($0.id.entity) }.sorted { $0.id.key < $1.id.key }
        return FetchResult(records: selected, pending: .all)
    }

    func count(_ request: FetchRequest) throws -> Int {
        try fetch(request).completed(for: FetchRequest(entity: request.entity, includesSubentities: request.includesSubentities, predicate: request.predicate), schema: schema).count
    }
}

/// A migration step held in two dictionaries, recording what the engine does with it. Its
/// source is scanned by the protocol's default `scanSource`, through the default
/// `StorageReader.records(of:after:limit:)`.
final class DictionaryMigration: StorageMigration {
    let source: StoreSchema
    let destination: StoreSchema
    var sourceRecords: [Int64: Record]
    var destinationRecords: [Int64: Record] = [:]
    var writes = 0
    var largestBatch = 0
    let sourceMetadata: StoredMetadata
    let sourceCounters: CommitCounters

    init(source: StoreSchema, destination: StoreSchema, records: [Record]) {
        self.source = source
        self.destination = destination
        self.sourceRecords = Dictionary(uniqueKeysWithValues: records.map { ($0.id.key, $0) })
        self.sourceMetadata = StoredMetadata(modelVersion: source.modelVersion, schemaHash: source.schemaHash)
        self.sourceCounters = CommitCounters(nextKey: (records.map(\.id.key).max() ?? 0) + 1, sequence: 7)
    }

    func readSource<T>(_ body: (any StorageReader) throws -> T) throws -> T {
        try body(DictionaryReader(records: sourceRecords, schema: source))
    }

    func readDestination<T>(_ body: (any StorageReader) throws -> T) throws -> T {
        try body(DictionaryReader(records: destinationRecords, schema: destination))
    }

    func writeDestination(_ changes: MergedChanges) throws {
        writes += 1
        largestBatch = max(largestBatch, changes.inserts.count)
        for record in changes.inserts {
            guard destinationRecords[record.id.key] == nil else { throw RecordValidator.insertedTwice(record.id) }
            destinationRecords[record.id.key] = record
        }
        for update in changes.updates { destinationRecords[update.new.id.key] = update.new }
        for record in changes.deletes { destinationRecords[record.id.key] = nil }
    }

    /// The metadata the migration finished with.
    var finishedMetadata: StoredMetadata?

    func finish(metadata: StoredMetadata, counters: CommitCounters) throws {
        finishedMetadata = metadata
    }
    func abandon() {}

    /// The destination record with `key`.
    subscript(key: Int64) -> Record? { destinationRecords[key] }
}

/// Two versions of a small model: V1 Person(name, nick?, age) ↔ Dog(name, owner);
/// V2 renames `nick` to `nickname`, drops `age`, adds `score` (default 5) and `email?`.
enum MigrationFixtures {
    static let v1 = StoreSchema(modelVersion: "V1", schemaHash: "h1", entities: [
        EntityDescription(name: "Person", attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "nick", type: .string, isOptional: true),
            AttributeDescription(name: "age", type: .integer, isOptional: false, defaultValue: .int(0)),
        ], relationships: [
            RelationshipDescription(name: "pets", kind: .toManyOrdered, destinationEntity: "Dog", inverseName: "owner"),
        ]),
        EntityDescription(name: "Dog", attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false),
        ], relationships: [
            RelationshipDescription(name: "owner", kind: .toOne, destinationEntity: "Person", inverseName: "pets"),
        ]),
    ])

    static let v2 = StoreSchema(modelVersion: "V2", schemaHash: "h2", entities: [
        EntityDescription(name: "Person", attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "nickname", type: .string, isOptional: false, defaultValue: .string("none"), renamingIdentifier: "nick"),
            AttributeDescription(name: "score", type: .integer, isOptional: false, defaultValue: .int(5)),
            AttributeDescription(name: "email", type: .string, isOptional: true),
        ], relationships: [
            RelationshipDescription(name: "dogs", kind: .toManyOrdered, destinationEntity: "Dog", inverseName: "owner", renamingIdentifier: "pets"),
        ]),
        EntityDescription(name: "Dog", attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false),
        ], relationships: [
            RelationshipDescription(name: "owner", kind: .toOne, destinationEntity: "Person", inverseName: "dogs"),
        ]),
    ])

    static func person(_ key: Int64, _ name: String, nick: String?, age: Int64, pets: [Int64]) -> Record {
        Record(id: RecordID(entity: "Person", key: key), attributes: [.string(name), nick.map(Value.string) ?? .null, .int(age)],
               relationships: [pets.map { RecordID(entity: "Dog", key: $0) }])
    }

    static func dog(_ key: Int64, _ name: String, owner: Int64?) -> Record {
        Record(id: RecordID(entity: "Dog", key: key), attributes: [.string(name)],
               relationships: [owner.map { [RecordID(entity: "Person", key: $0)] } ?? []])
    }

    /// Ann (1) owns Rex (3) and Fido (4); Bob (2) owns Max (5).
    static let records: [Record] = [
        person(1, "Ann", nick: "A", age: 30, pets: [3, 4]),
        person(2, "Bob", nick: nil, age: 40, pets: [5]),
        dog(3, "Rex", owner: 1), dog(4, "Fido", owner: 1), dog(5, "Max", owner: 2),
    ]
}
