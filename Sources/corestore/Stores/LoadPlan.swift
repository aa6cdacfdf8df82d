import CoreStoreStorage

/// The one change set `corestore load` commits: an insert per new object, an update per object
/// that matches a stored one by the entity's first unique constraint.
struct LoadPlan {
    let schema: StoreSchema
    let entity: String
    private(set) var changes = ChangeSet()
    /// Objects of the file by the constraint they are unique under and their values for it:
    /// where their change is.
    private var byUniqueValues: [UniqueKey: Pending] = [:]
    private var nextTemporaryKey: Int64 = -1

    private struct UniqueKey: Hashable {
        let owner: String
        let attributes: [String]
        let values: [Value]
    }
    private enum Pending {
        case insert(Int)
        case update(Int)
    }

    init(schema: StoreSchema, entity: String) {
        self.schema = schema
        self.entity = entity
    }

    /// Adds one object of the file; throws a message for a bad field.
    mutating func add(_ fields: [String: JSONValue], reader: any StorageReader) throws {
        let concrete: String
        switch fields["_entity"] {
        case nil: concrete = entity
        case .string(let name)?: concrete = name
        case let other?: throw StoreToolError("'_entity' must be an entity name, not \(other.shown)")
        }
        guard let description = schema.entity(named: concrete), schema.entity(concrete, isKindOf: entity) else {
            throw StoreToolError("'\(concrete)' is not \(entity) or one of its sub-entities")
        }
        guard !description.isAbstract else { throw StoreToolError("\(concrete) is abstract; name a concrete sub-entity in '_entity'") }
        var attributes: [Int: Value] = [:]
        var relationships: [Int: [RecordID]] = [:]
        for (name, json) in fields where name != "_entity" && name != "_key" {
            if let ordinal = description.attributeOrdinal(name) {
                attributes[ordinal] = try LoadValue.value(json, for: description.attributes[ordinal])
            } else if let ordinal = description.relationshipOrdinal(name) {
                relationships[ordinal] = try destinations(json, of: description.relationships[ordinal], reader: reader)
            } else {
                throw StoreToolError("'\(name)' is not an attribute or relationship of \(concrete)")
            }
        }
        let changedKeys = Set(attributes.keys.map { description.attributes[$0].name } + relationships.keys.map { description.relationships[$0].name })
        func applied(to record: Record) -> Record {
            var record = record
            for (ordinal, value) in attributes { record.attributes[ordinal] = value }
            for (ordinal, ids) in relationships { record.relationships[ordinal] = ids }
            return record
        }

        let unique = try uniqueKey(of: concrete, attributes: attributes, description: description)
        if let unique, let pending = byUniqueValues[unique] {
            switch pending {
            case .insert(let i):
                guard changes.inserts[i].id.entity == concrete else {
                    throw StoreToolError("its unique values are those of an earlier \(changes.inserts[i].id.entity) in the file, which is not a \(concrete)")
                }
                changes.inserts[i] = applied(to: changes.inserts[i])
            case .update(let i):
                let update = changes.updates[i]
                guard update.record.id.entity == concrete else {
                    throw StoreToolError("its unique values belong to \(update.record.id), which is not a \(concrete)")
                }
                changes.updates[i] = RecordUpdate(record: applied(to: update.record), changedKeys: update.changedKeys.union(changedKeys), base: update.base)
            }
            return
        }
        if let unique, let stored = try storedRecord(matching: unique, reader: reader) {
            guard stored.id.entity == concrete else {
                throw StoreToolError("its unique values belong to \(stored.id), which is not a \(concrete)")
            }
            changes.updates.append(RecordUpdate(record: applied(to: stored), changedKeys: changedKeys, base: stored))
            byUniqueValues[unique] = .update(changes.updates.count - 1)
            return
        }
        let blank = Record(
            id: RecordID(entity: concrete, key: nextTemporaryKey),
            attributes: description.attributes.map(\.defaultValue),
            relationships: description.relationships.map { _ in [] }
        )
        nextTemporaryKey -= 1
        changes.inserts.append(applied(to: blank))
        if let unique { byUniqueValues[unique] = .insert(changes.inserts.count - 1) }
    }

    /// The destinations a relationship field names, each checked to exist.
    private func destinations(_ json: JSONValue, of relationship: RelationshipDescription, reader: any StorageReader) throws -> [RecordID] {
        let keys: [Int64]
        switch (relationship.kind, json) {
        case (.toOne, .null): keys = []
        case (.toOne, .integer(let key)): keys = [key]
        case (.toManyOrdered, .array(let items)), (.toManyUnordered, .array(let items)):
            keys = try items.map {
                guard case .integer(let key) = $0 else { throw StoreToolError("'\(relationship.name)' must list keys of \(relationship.destinationEntity) objects, not \($0.shown)") }
                return key
            }
        case (.toOne, _): throw StoreToolError("'\(relationship.name)' must be the key of a \(relationship.destinationEntity) object or null, not \(json.shown)")
        default: throw StoreToolError("'\(relationship.name)' must be a list of keys of \(relationship.destinationEntity) objects, not \(json.shown)")
        }
        let ids = keys.map { RecordID(entity: relationship.destinationEntity, key: $0) }
        for (id, found) in zip(ids, try reader.records(ids)) where found == nil {
            throw StoreToolError("'\(relationship.name)' points to \(id), which is not in the store")
        }
        return ids
    }

    /// The object's first unique constraint and its values for it, or `nil` when the entity has
    /// none or the object leaves one of its attributes out or `nil`.
    private func uniqueKey(of concrete: String, attributes: [Int: Value], description: EntityDescription) throws -> UniqueKey? {
        guard let constraint = schema.uniqueConstraints(applyingTo: concrete).first else { return nil }
        var values: [Value] = []
        for name in constraint.attributes {
            guard let ordinal = description.attributeOrdinal(name), let value = attributes[ordinal], !value.isNull else { return nil }
            values.append(value)
        }
        return UniqueKey(owner: constraint.owner, attributes: constraint.attributes, values: values)
    }

    /// The stored record of the constraint's scope holding its values.
    private func storedRecord(matching key: UniqueKey, reader: any StorageReader) throws -> Record? {
        let predicate = RecordPredicate.and(zip(key.attributes, key.values).map { .comparison(Comparison($0, .equal, $1)) })
        let request = FetchRequest(entity: key.owner, predicate: predicate, limit: 1)
        return try reader.fetch(request).completed(for: request, schema: schema).first
    }
}
