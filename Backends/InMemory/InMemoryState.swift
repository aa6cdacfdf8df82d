import CoreStoreStorage
import HashTreeCollections

/// One immutable version of an in-memory store's data. Copies share structure.
struct InMemoryState: Sendable {
    let schema: StoreSchema
    var metadata: StoredMetadata?
    /// Records by concrete entity, then by key.
    var tables: [String: TreeDictionary<Int64, Record>] = [:]
    /// For each unique constraint (`UniqueConstraint.id`), the owner of each value tuple.
    var uniqueValues: [String: TreeDictionary<[Value], Int64>] = [:]
    /// The secondary indexes the schema declares, kept next to the unique tuples.
    var indexes: InMemoryIndexes
    var nextKey: Int64 = 1
    var sequence: UInt64 = 0
    let constraints: [String: [UniqueConstraint]]

    init(schema: StoreSchema, metadata: StoredMetadata?) {
        self.schema = schema
        self.metadata = metadata
        var constraints: [String: [UniqueConstraint]] = [:]
        for entity in schema.entities {
            // A constraint declared on an entity covers it and every descendant.
            for (owner, attributes) in schema.uniqueConstraints(applyingTo: entity.name) {
                let ordinals = attributes.compactMap { schema.attributeOrdinal($0, in: entity.name) }
                constraints[entity.name, default: []].append(
                    UniqueConstraint(id: "\(owner)|\(attributes.joined(separator: ","))", entity: owner, attributes: attributes, ordinals: ordinals)
                )
            }
        }
        self.constraints = constraints
        self.indexes = InMemoryIndexes(schema: schema)
    }

    func record(_ id: RecordID) -> Record? {
        tables[id.entity]?[id.key]
    }

    /// Applies a change set whose identifiers are all permanent; throws (leaving `self` partly
    /// changed, so callers apply to a copy) when a record is missing or a constraint breaks.
    mutating func apply(_ changes: ChangeSet) throws {
        guard !changes.isEmpty else { return }
        var removed: [Record] = []
        for id in changes.deletes {
            guard let old = tables[id.entity]?.removeValue(forKey: id.key) else { throw StorageError.recordNotFound(id) }
            removed.append(old)
        }
        for update in changes.updates {
            let id = update.record.id
            guard let old = tables[id.entity]?.updateValue(update.record, forKey: id.key) else {
                throw StorageError.recordNotFound(id)
            }
            try validateShape(update.record)
            removed.append(old)
        }
        for record in changes.inserts {
            guard schema.entity(named: record.id.entity).map({ !$0.isAbstract }) == true else {
                throw StorageError.unknownEntity(record.id.entity)
            }
            try validateShape(record)
            if tables[record.id.entity, default: [:]].updateValue(record, forKey: record.id.key) != nil {
                throw StorageError.invalidRequest("record \(record.id) is inserted twice")
            }
        }
        // Uniqueness: release the old tuples first, so that swaps inside one commit succeed.
        for old in removed {
            indexes.remove(old)
            for constraint in constraints[old.id.entity] ?? [] {
                let tuple = constraint.tuple(of: old)
                if !tuple.contains(.null), uniqueValues[constraint.id]?[tuple] == old.id.key {
                    uniqueValues[constraint.id]?.removeValue(forKey: tuple)
                }
            }
        }
        for record in changes.updates.map(\.record) + changes.inserts {
            indexes.add(record)
            for constraint in constraints[record.id.entity] ?? [] {
                let tuple = constraint.tuple(of: record)
                if tuple.contains(.null) { continue }
                if let owner = uniqueValues[constraint.id, default: [:]].updateValue(record.id.key, forKey: tuple), owner != record.id.key {
                    throw StorageError.uniqueConstraintViolation(entity: constraint.entity, attributes: constraint.attributes, values: tuple)
                }
            }
        }
    }

    private func validateShape(_ record: Record) throws {
        guard let entity = schema.entity(named: record.id.entity) else { throw StorageError.unknownEntity(record.id.entity) }
        guard record.attributes.count == entity.attributes.count, record.relationships.count == entity.relationships.count else {
            throw StorageError.invalidRequest("record \(record.id) does not match the shape of entity '\(entity.name)'")
        }
    }
}

/// A uniqueness constraint as it applies to one concrete entity.
struct UniqueConstraint: Sendable {
    let id: String
    let entity: String
    let attributes: [String]
    let ordinals: [Int]

    func tuple(of record: Record) -> [Value] {
        ordinals.map { record.attributes[$0] }
    }
}
