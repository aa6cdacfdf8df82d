import Foundation
import CSQLite
import CoreStoreStorage
@testable import CoreStoreSQLite

/// Model versions and data for the migration tests, built by hand as `StoreSchema`s.
///
/// - V1: `Zoo` (name, city, rating; ordered `residents` ⇄ `Creature.zoo`, unordered
///   `favorites` in a join table), abstract `Creature` (name) with `Lion` (mane) and `Snake`
///   (optional length), and `Account` (optional email and handle).
/// - V2 changes attributes only (a native step): `Zoo.city` removed, `rating` renamed `score`,
///   new `opened` (date), `code` (UUID) and `budget` (decimal) with defaults; `Creature.name`
///   indexed; `Lion` gains `roar` (2.5) and `weight` (-0.0); `Snake.length` becomes
///   non-optional (default 1); `Account.handle` indexed and `email` unique.
/// - V3 needs a copy: `favorites` renamed `picks`, `rating` renamed `score`, `city` removed,
///   `Lion.roar` added, `Account` removed.
enum MigrationFixtures {
    static func attribute(_ name: String, _ type: AttributeType, optional: Bool = true, default value: Value = .null,
                          indexed: Bool = false, renamedFrom old: String? = nil) -> AttributeDescription {
        AttributeDescription(name: name, type: type, isOptional: optional, defaultValue: value, isIndexed: indexed, renamingIdentifier: old)
    }

    static let openedDefault = Date(timeIntervalSinceReferenceDate: 1_234.5)
    static let codeDefault = UUID(uuidString: "01234567-89AB-CDEF-0123-456789ABCDEF")!
    static let budgetDefault = Decimal(string: "12.25")!

    static let residents = RelationshipDescription(name: "residents", kind: .toManyOrdered, destinationEntity: "Creature", inverseName: "zoo")
    static let favorites = RelationshipDescription(name: "favorites", kind: .toManyUnordered, destinationEntity: "Creature", inverseName: nil)
    static let zoo = RelationshipDescription(name: "zoo", kind: .toOne, destinationEntity: "Zoo", inverseName: "residents")

    static func creatures(name: AttributeDescription, lion: [AttributeDescription], snake: [AttributeDescription]) -> [EntityDescription] {
        [
            EntityDescription(name: "Creature", isAbstract: true, attributes: [name], relationships: [zoo]),
            EntityDescription(name: "Lion", parentName: "Creature", attributes: [name] + lion, relationships: [zoo]),
            EntityDescription(name: "Snake", parentName: "Creature", attributes: [name] + snake, relationships: [zoo]),
        ]
    }

    static let v1 = StoreSchema(modelVersion: "V1", schemaHash: "migration-v1", entities: [
        EntityDescription(name: "Zoo", attributes: [
            attribute("name", .string, optional: false, default: .string("")),
            attribute("city", .string),
            attribute("rating", .integer),
        ], relationships: [residents, favorites]),
    ] + creatures(
        name: attribute("name", .string, optional: false, default: .string("")),
        lion: [attribute("mane", .bool, optional: false, default: .bool(false))],
        snake: [attribute("length", .double)]
    ) + [
        EntityDescription(name: "Account", attributes: [attribute("email", .string), attribute("handle", .string)]),
    ])

    static let v2 = StoreSchema(modelVersion: "V2", schemaHash: "migration-v2", entities: [
        EntityDescription(name: "Zoo", attributes: [
            attribute("name", .string, optional: false, default: .string("")),
            attribute("score", .integer, renamedFrom: "rating"),
            attribute("opened", .date, optional: false, default: .date(openedDefault)),
            attribute("code", .uuid, optional: false, default: .uuid(codeDefault)),
            attribute("budget", .decimal, optional: false, default: .decimal(budgetDefault)),
        ], relationships: [residents, favorites]),
    ] + creatures(
        name: attribute("name", .string, optional: false, default: .string(""), indexed: true),
        lion: [
            attribute("mane", .bool, optional: false, default: .bool(false)),
            attribute("roar", .double, optional: false, default: .double(2.5)),
            attribute("weight", .double, optional: false, default: .double(-0.0)),
        ],
        snake: [attribute("length", .double, optional: false, default: .double(1))]
    ) + [
        EntityDescription(name: "Account", attributes: [attribute("email", .string), attribute("handle", .string)],
                          indexes: [["handle"]], uniqueConstraints: [["email"]]),
    ])

    static let v3 = StoreSchema(modelVersion: "V3", schemaHash: "migration-v3", entities: [
        EntityDescription(name: "Zoo", attributes: [
            attribute("name", .string, optional: false, default: .string("")),
            attribute("score", .integer, renamedFrom: "rating"),
        ], relationships: [
            residents,
            RelationshipDescription(name: "picks", kind: .toManyUnordered, destinationEntity: "Creature", inverseName: nil, renamingIdentifier: "favorites"),
        ]),
    ] + creatures(
        name: attribute("name", .string, optional: false, default: .string("")),
        lion: [attribute("mane", .bool, optional: false, default: .bool(false)), attribute("roar", .double, optional: false, default: .double(2.5))],
        snake: [attribute("length", .double)]
    ))

    /// The inferred mapping of a step.
    static func mapping(_ source: StoreSchema, _ destination: StoreSchema) throws -> SchemaMapping {
        try InferredSchemaMappingProvider().schemaMapping(from: source, to: destination)
    }

    /// The V1 data: two zoos, three lions, two snakes, three accounts (keys 1…10 in this order).
    /// `residents` of the first zoo are out of key order, so that lost positions would show.
    static func sourceRecords(duplicateEmails: Bool = false) -> [Record] {
        func id(_ entity: String, _ key: Int64) -> RecordID { RecordID(entity: entity, key: -key) }
        let zoo1 = id("Zoo", 1), lion1 = id("Lion", 2), lion2 = id("Lion", 3), snake1 = id("Snake", 4)
        let zoo2 = id("Zoo", 5), lion3 = id("Lion", 6), snake2 = id("Snake", 7)
        return [
            Record(id: zoo1, attributes: [.string("Central"), .string("New York"), .int(5)], relationships: [[snake1, lion2, lion1], [lion1, snake1]]),
            Record(id: lion1, attributes: [.string("Leo"), .bool(true)], relationships: [[zoo1]]),
            Record(id: lion2, attributes: [.string("Nala"), .bool(false)], relationships: [[zoo1]]),
            Record(id: snake1, attributes: [.string("Kaa"), .null], relationships: [[zoo1]]),
            Record(id: zoo2, attributes: [.string("Bronx"), .null, .null], relationships: [[lion3], []]),
            Record(id: lion3, attributes: [.string("Simba"), .bool(true)], relationships: [[zoo2]]),
            Record(id: snake2, attributes: [.string("Nagini"), .double(3.5)], relationships: [[]]),
            Record(id: id("Account", 8), attributes: [.string("a@example.com"), .string("ann")], relationships: []),
            Record(id: id("Account", 9), attributes: [.null, .null], relationships: []),
            Record(id: id("Account", 10), attributes: [.string(duplicateEmails ? "a@example.com" : "b@example.com"), .string("bob")], relationships: []),
        ]
    }

    /// A closed V1 store at `url` holding ``sourceRecords(duplicateEmails:)``.
    static func makeSourceStore(_ url: URL, duplicateEmails: Bool = false) throws {
        let store = SQLiteStore(fileURL: url)
        _ = try store.open(schema: v1)
        _ = try store.write(ChangeSet(inserts: sourceRecords(duplicateEmails: duplicateEmails)))
        store.close()
    }

    /// Every record of the concrete entities of `schema`, entity by entity in key order.
    static func readAll(_ url: URL, _ schema: StoreSchema) throws -> [Record] {
        let store = SQLiteStore(fileURL: url)
        let metadata = try store.open(schema: schema)
        defer { store.close() }
        guard metadata?.schemaHash == schema.schemaHash else {
            throw StorageError.incompatibleStore(path: url.path, reason: "holds \(metadata?.modelVersion ?? "nothing"), not \(schema.modelVersion)")
        }
        return try store.read { reader in try allRecords(reader, schema) }
    }

    /// Every record of the concrete entities of `schema` that `reader` sees.
    static func allRecords(_ reader: any StorageReader, _ schema: StoreSchema) throws -> [Record] {
        try schema.entities.filter { !$0.isAbstract }.flatMap {
            try reader.fetch(FetchRequest(entity: $0.name, includesSubentities: false)).records
        }
    }

    /// `record` of `mapping.source` as the inferred copy makes it: what the core does.
    static func convert(_ record: Record, _ mapping: SchemaMapping) -> Record? {
        guard let entityMapping = mapping.entityMappings.first(where: { $0.sourceEntity == record.id.entity }),
              let source = mapping.source.entity(named: entityMapping.sourceEntity) else { return nil }
        let attributes = entityMapping.attributes.map { attributeSource -> Value in
            switch attributeSource {
            case .constant(let value):
                return value
            case .attribute(let name, let nullReplacement):
                let value = source.attributeOrdinal(name).map { record.attributes[$0] } ?? .null
                return value == .null ? (nullReplacement ?? .null) : value
            }
        }
        let relationships = entityMapping.relationships.map { name in
            name.flatMap { source.relationshipOrdinal($0) }.map { record.relationships[$0] } ?? []
        }
        return Record(id: RecordID(entity: entityMapping.destinationEntity, key: record.id.key), attributes: attributes, relationships: relationships)
    }

    /// Copies every record through `scanSource` and `writeDestination`, `batchSize` at a time.
    static func copy(_ migration: any StorageMigration, _ mapping: SchemaMapping, batchSize: Int) throws {
        for entityMapping in mapping.entityMappings {
            try migration.scanSource(entity: entityMapping.sourceEntity, batchSize: batchSize) { records in
                try migration.writeDestination(MergedChanges(inserts: records.compactMap { convert($0, mapping) }))
            }
        }
    }

    /// The destination's metadata.
    static func metadata(_ schema: StoreSchema) -> StoredMetadata {
        StoredMetadata(modelVersion: schema.modelVersion, schemaHash: schema.schemaHash)
    }

    /// The bytes of the file at `url`.
    static func bytes(_ url: URL) throws -> Data {
        try Data(contentsOf: url)
    }

    /// The tables (with their columns and declared types) and indexes (with their SQL) of the
    /// database at `url`, apart from the metadata table: what a migration's result must match.
    static func layout(_ url: URL) throws -> Set<String> {
        let connection = try SQLiteConnection(path: url.path, flags: SQLITE_OPEN_READONLY, schema: v1)
        var entries: Set<String> = []
        var tables: [String] = []
        try connection.statement("SELECT type, name, sql FROM sqlite_master WHERE name <> 'corestore_metadata' AND name NOT LIKE 'sqlite_%'").query { row in
            let type = row.text(0) ?? "", name = row.text(1) ?? ""
            if type == "table" { tables.append(name) } else { entries.insert("\(type) \(name): \(row.text(2) ?? "")") }
        }
        for table in tables {
            try connection.statement("SELECT name, type FROM pragma_table_info(?1)").query([.text(table)]) { row in
                entries.insert("column \(table).\(row.text(0) ?? ""): \(row.text(1) ?? "")")
            }
        }
        return entries
    }
}
