/// Whether records have the shape of their entity in a schema: as many attribute values and
/// relationship lists as the entity declares. The last entity looked up answers again without
/// hashing its name (records of one entity usually come together).
struct RecordShapes {
    private let schema: StoreSchema
    private var last: (name: String, attributes: Int, relationships: Int)?

    init(schema: StoreSchema) {
        self.schema = schema
    }

    /// Whether `record`'s entity is in the schema and `record` has its shape.
    mutating func fit(_ record: Record) -> Bool {
        if let last, last.name == record.id.entity {
            return record.attributes.count == last.attributes && record.relationships.count == last.relationships
        }
        guard let entity = schema.entity(named: record.id.entity) else { return false }
        last = (entity.name, entity.attributes.count, entity.relationships.count)
        return record.attributes.count == entity.attributes.count && record.relationships.count == entity.relationships.count
    }
}
