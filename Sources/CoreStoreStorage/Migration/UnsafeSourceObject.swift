/// A read-only view of one record of the source model version, handed to a migration
/// transformer. Read attributes and relationships by key, as CoreStore's key-value coding does.
///
/// Valid only while the transformer runs.
public final class UnsafeSourceObject {
    /// The record's identity in the source store.
    public let recordID: RecordID
    /// The source entity of the record.
    public let entity: EntityDescription
    let record: Record
    private let schema: StoreSchema
    private let load: (RecordID) throws -> UnsafeSourceObject?

    init(record: Record, entity: EntityDescription, schema: StoreSchema, load: @escaping (RecordID) throws -> UnsafeSourceObject?) {
        self.recordID = record.id
        self.record = record
        self.entity = entity
        self.schema = schema
        self.load = load
    }

    /// The value of the attribute or relationship `attribute`: a Swift value (`String`,
    /// `Int64`, `Double`, `Bool`, `Decimal`, `Data`, `Date`, `UUID`, `URL`), an
    /// `UnsafeSourceObject` for a to-one relationship, `[UnsafeSourceObject]` for a to-many;
    /// `nil` for no value or an unknown key.
    public subscript(attribute: String) -> Any? {
        if let ordinal = entity.attributeOrdinal(attribute) {
            return record.attributes[ordinal].anyValue(as: entity.attributes[ordinal].type)
        }
        guard let ordinal = entity.relationshipOrdinal(attribute) else { return nil }
        let destinations = record.relationships[ordinal].compactMap { try? load($0) }
        if entity.relationships[ordinal].kind.isToMany { return destinations }
        return destinations.first
    }

    /// The value of `attribute` (see ``subscript(_:)``).
    public subscript(attribute: AttributeDescription) -> Any? {
        self[attribute.name]
    }

    /// The stored value of `attribute`, `nil` for an unknown attribute.
    public func value(of attribute: String) -> Value? {
        entity.attributeOrdinal(attribute).map { record.attributes[$0] }
    }

    /// Calls `closure` with every attribute of the source entity, in ordinal order.
    public func enumerateAttributes(_ closure: (_ attribute: AttributeDescription) -> Void) {
        entity.attributes.forEach(closure)
    }
}
