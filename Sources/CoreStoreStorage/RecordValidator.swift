/// Checks records of a change set against the store's schema, with the errors every store
/// reports the same way. ``ChangeMerger`` runs it for every record it writes, so a store that
/// writes merged changes needs no checks of its own beyond "the key is already taken".
public struct RecordValidator: Sendable {
    /// The schema records are checked against.
    public let schema: StoreSchema

    /// A validator for `schema`.
    public init(schema: StoreSchema) {
        self.schema = schema
    }

    /// Checks that `record` names a concrete entity of the schema and has its shape.
    /// Throws ``StorageError/unknownEntity(_:)`` for an unknown or abstract entity and
    /// ``StorageError/invalidRequest(_:)`` for a wrong number of attributes or relationships.
    public func validateInsert(_ record: Record) throws {
        guard let entity = schema.entity(named: record.id.entity), !entity.isAbstract else {
            throw StorageError.unknownEntity(record.id.entity)
        }
        try validateShape(record, of: entity)
    }

    /// Checks that `record` has the shape of its entity (one value per attribute, one list per
    /// relationship).
    public func validateShape(_ record: Record) throws {
        guard let entity = schema.entity(named: record.id.entity) else { throw StorageError.unknownEntity(record.id.entity) }
        try validateShape(record, of: entity)
    }

    private func validateShape(_ record: Record, of entity: EntityDescription) throws {
        guard record.attributes.count == entity.attributes.count, record.relationships.count == entity.relationships.count else {
            throw StorageError.invalidRequest("record \(record.id) does not match the shape of entity '\(entity.name)'")
        }
    }

    /// The error for an insert whose key a stored record already holds.
    public static func insertedTwice(_ id: RecordID) -> StorageError {
        .invalidRequest("record \(id) is inserted twice")
    }
}
