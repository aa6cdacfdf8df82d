/// One stored object: its identity, attribute values and relationship destinations.
///
/// Values are positional: `attributes[i]` belongs to `entity.attributes[i]` and
/// `relationships[i]` to `entity.relationships[i]` of the ``EntityDescription`` named by
/// `id.entity`. A to-one relationship holds zero or one identifier; an ordered to-many keeps its
/// order; the order of an unordered to-many carries no meaning. Both sides of an inverse pair are stored.
public struct Record: Sendable, Hashable {
    /// The record's identity.
    public var id: RecordID
    /// Attribute values by ordinal.
    public var attributes: [Value]
    /// Relationship destinations by ordinal.
    public var relationships: [[RecordID]]

    /// Creates a record.
    public init(id: RecordID, attributes: [Value], relationships: [[RecordID]]) {
        self.id = id
        self.attributes = attributes
        self.relationships = relationships
    }

    /// The record of `id` answered by identifier alone, without values: how a backend may
    /// answer a record the asker already holds (``FetchRequest/knownRecords``).
    public init(identifierOnly id: RecordID) {
        self.init(id: id, attributes: [], relationships: [])
    }

    /// Whether the record holds no attribute and no relationship values: one answered by
    /// identifier alone, or one of an entity that has neither.
    public var holdsNoValues: Bool { attributes.isEmpty && relationships.isEmpty }
}
