import Foundation
import Testing
import CoreStoreKeyValue
import CoreStoreStorage
import CoreStoreLMDB
import CoreStoreLevelDB

/// The stores every migration test runs on: a `KeyValueStorage` over the in-memory engine, and
/// the public `LMDBStore` and `LevelDBStore` (which migrate through `KeyValueStorageWrapper`).
enum MigrationStoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory
    case lmdb
    case leveldb

    var testDescription: String { rawValue }
}

/// One store's data, opened again and again: every ``storage()`` is a new store object over it,
/// as after a restart of the process (the in-memory engine is shared, files are reopened).
final class MigrationSite {
    let kind: MigrationStoreKind
    let url: URL
    private let memory = MemoryKeyValueStore()
    private let initialMapSize: Int

    /// A site in `url`; with `smallMap`, LMDB starts at a 64 KiB map so that writes make it grow.
    init(_ kind: MigrationStoreKind, at url: URL, smallMap: Bool = false) {
        self.kind = kind
        self.url = url
        initialMapSize = smallMap ? 64 << 10 : LMDBEngine.defaultInitialMapSize
    }

    /// A new, closed store over the site's data.
    func storage() -> any MigratableStorage {
        switch kind {
        case .memory: return KeyValueStorage(engine: memory)
        case .lmdb: return LMDBStore(fileURL: url, initialMapSize: initialMapSize)
        case .leveldb: return LevelDBStore(fileURL: url)
        }
    }

    /// Every key stored, read through a bare engine. REQUIRES: no store of the site is open.
    func keys() throws -> [[UInt8]] {
        try pairs().map(\.key)
    }

    /// Every pair stored. REQUIRES: no store of the site is open.
    func pairs() throws -> [Pair] {
        try withBareEngine { engine in try engine.read { try collect($0) } }
    }

    /// Writes `pairs` through a bare engine (to lay out what a crash leaves).
    /// REQUIRES: no store of the site is open.
    func put(_ pairs: [Pair]) throws {
        try withBareEngine { engine in
            try engine.write { writer in
                for pair in pairs { try writer.put(pair.key, pair.value) }
            }
        }
    }

    /// Runs `body` with the site's engine open, without a store around it.
    private func withBareEngine<T>(_ body: (any OrderedKeyValueStore) throws -> T) throws -> T {
        let engine: any OrderedKeyValueStore
        switch kind {
        case .memory: engine = memory
        case .lmdb: engine = LMDBEngine(directoryURL: url, initialMapSize: initialMapSize)
        case .leveldb: engine = LevelDBEngine(directoryURL: url)
        }
        try engine.open()
        defer { engine.close() }
        return try body(engine)
    }
}

/// Runs `body` with a site of `kind` in a fresh temporary directory.
func withMigrationSite<T>(_ kind: MigrationStoreKind, smallMap: Bool = false, _ body: (MigrationSite) throws -> T) throws -> T {
    try withTemporaryStore { url in try body(MigrationSite(kind, at: url, smallMap: smallMap)) }
}

/// Two versions of one model. A: Person (indexed name, indexed age, unique name) and Pet ← Dog
/// (indexed breed). B: Person gains `nickname` and an index on it; Pet and Dog are unchanged.
enum MigrationModel {
    static let pets = [
        EntityDescription(name: "Pet", attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false),
        ]),
        EntityDescription(name: "Dog", parentName: "Pet", attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false),
            AttributeDescription(name: "breed", type: .string, isOptional: true, isIndexed: true),
        ]),
    ]

    static let a = StoreSchema(modelVersion: "A", schemaHash: "hash-a", entities: [
        EntityDescription(name: "Person", attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false, isIndexed: true),
            AttributeDescription(name: "age", type: .integer, isOptional: true, isIndexed: true),
        ], uniqueConstraints: [["name"]]),
    ] + pets)

    static let b = StoreSchema(modelVersion: "B", schemaHash: "hash-b", entities: [
        EntityDescription(name: "Person", attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false, isIndexed: true),
            AttributeDescription(name: "age", type: .integer, isOptional: true, isIndexed: true),
            AttributeDescription(name: "nickname", type: .string, isOptional: true, isIndexed: true),
        ], uniqueConstraints: [["name"]]),
    ] + pets)

    /// B again under another hash, for a second migration.
    static let c = StoreSchema(modelVersion: "C", schemaHash: "hash-c", entities: b.entities)

    static func metadata(_ schema: StoreSchema) -> StoredMetadata {
        StoredMetadata(modelVersion: schema.modelVersion, schemaHash: schema.schemaHash)
    }

    static func personA(_ key: Int64, _ name: String, age: Int64?) -> Record {
        Record(id: RecordID(entity: "Person", key: key), attributes: [.string(name), age.map(Value.int) ?? .null], relationships: [])
    }

    static func pet(_ key: Int64, _ name: String) -> Record {
        Record(id: RecordID(entity: "Pet", key: key), attributes: [.string(name)], relationships: [])
    }

    static func dog(_ key: Int64, _ name: String, breed: String?) -> Record {
        Record(id: RecordID(entity: "Dog", key: key), attributes: [.string(name), breed.map(Value.string) ?? .null], relationships: [])
    }

    /// Writes the sample data under A: keys 1…9, persons, pets and dogs interleaved.
    static func seed(_ storage: any StorageInterface) throws {
        _ = try storage.write(ChangeSet(inserts: [
            personA(-1, "Ann", age: 30), pet(-2, "Tom"), personA(-3, "Bob", age: 41), dog(-4, "Rex", breed: "collie"),
            personA(-5, "Cy", age: nil), dog(-6, "Fido", breed: nil), personA(-7, "Di", age: 30), pet(-8, "Kit"),
            personA(-9, "Ed", age: 55),
        ]))
    }

    /// A's person as B's: the nickname is the lowercased name.
    static func toB(_ record: Record) -> Record {
        guard record.id.entity == "Person" else { return record }
        var attributes = record.attributes
        if case .string(let name) = attributes[0] { attributes.append(.string(name.lowercased())) } else { attributes.append(.null) }
        return Record(id: record.id, attributes: attributes, relationships: record.relationships)
    }

    /// Copies every record of every entity through `scanSource` and `writeDestination`, mapped
    /// by `map`, in batches of `batchSize`; returns the batches' sizes per entity.
    @discardableResult
    static func copy(_ migration: any StorageMigration, batchSize: Int = 2, map: (Record) -> Record = toB) throws -> [String: [Int]] {
        var batches: [String: [Int]] = [:]
        for entity in ["Person", "Pet", "Dog"] {
            try migration.scanSource(entity: entity, batchSize: batchSize) { records in
                batches[entity, default: []].append(records.count)
                try migration.writeDestination(MergedChanges(inserts: records.map(map)))
            }
        }
        return batches
    }

    /// Every record of `entity` (with sub-entities), by key.
    static func all(_ reader: any StorageReader, _ entity: String) throws -> [Record] {
        try reader.fetch(FetchRequest(entity: entity)).records
    }
}

/// The generation `key` belongs to; `nil` for the root pointer.
func generation(of key: [UInt8]) -> UInt64? {
    if key.first == KeyValueGeneration.rootSpace { return nil }
    guard key.first == KeyValueGeneration.generationSpace, key.count >= 9 else { return 0 }
    return key[1..<9].reduce(0) { $0 << 8 | UInt64($1) }
}

/// Whether `error` is `StorageError.invalidRequest`.
func isInvalidRequest(_ error: any Error) -> Bool {
    if case StorageError.invalidRequest = error { return true }
    return false
}
