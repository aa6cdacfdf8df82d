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
    /// The next key and the commit sequence.
    var counters = CommitCounters()
    /// The secondary indexes the schema declares, kept next to the unique tuples.
    var indexes: InMemoryIndexes
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

    /// The record with `id`'s key whose entity is `id.entity` or one of its descendants.
    func record(ofKind id: RecordID) -> Record? {
        if let record = tables[id.entity]?[id.key] { return record }
        for entity in schema.entityAndDescendants(id.entity).dropFirst() {
            if let record = tables[entity]?[id.key] { return record }
        }
        return nil
    }

    /// Merges `changes` (permanent identifiers only) with this state and applies the result.
    mutating func apply(_ changes: ChangeSet) throws {
        let stored = self
        try apply(try ChangeMerger.merge(changes, schema: schema) { ids in ids.map { stored.record(ofKind: $0) } })
    }

    /// Applies merged changes (see `ChangeMerger`); throws (leaving `self` partly changed, so
    /// callers apply to a copy) when an inserted key is taken or a constraint breaks.
    mutating func apply(_ changes: MergedChanges) throws {
        guard !changes.isEmpty else { return }
        var removed: [Record] = changes.deletes
        for old in changes.deletes {
            tables[old.id.entity]?.removeValue(forKey: old.id.key)
        }
        for update in changes.updates {
            tables[update.new.id.entity]?[update.new.id.key] = update.new
            removed.append(update.old)
        }
        for record in changes.inserts {
            if tables[record.id.entity, default: [:]].updateValue(record, forKey: record.id.key) != nil {
                throw RecordValidator.insertedTwice(record.id)
            }
        }
        // Uniqueness: release the old tuples first, so that swaps inside one commit succeed.
        for old in changes.deletes { indexes.remove(old) }
        for update in changes.updates { indexes.replace(update.old, with: update.new) }
        for record in changes.inserts { indexes.add(record) }
        for old in removed {
            for constraint in constraints[old.id.entity] ?? [] {
                let tuple = constraint.tuple(of: old)
                if !tuple.contains(.null), uniqueValues[constraint.id]?[tuple] == old.id.key {
                    uniqueValues[constraint.id]?.removeValue(forKey: tuple)
                }
            }
        }
        for record in changes.updates.map(\.new) + changes.inserts {
            for constraint in constraints[record.id.entity] ?? [] {
                let tuple = constraint.tuple(of: record)
                if tuple.contains(.null) { continue }
                if let owner = uniqueValues[constraint.id, default: [:]].updateValue(record.id.key, forKey: tuple), owner != record.id.key {
                    throw StorageError.uniqueConstraintViolation(entity: constraint.entity, attributes: constraint.attributes, values: tuple)
                }
            }
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
