/// Sorts records by sort descriptors in ``RecordOrder``: each key in ``Value/storageOrder(_:_:)``
/// (`nil` first when ascending), ties broken by record key.
public struct RecordSorter: Sendable {
    private let schema: StoreSchema
    private let order: RecordOrder

    /// Creates a sorter.
    public init(schema: StoreSchema, sortDescriptors: [RecordSortDescriptor]) {
        self.schema = schema
        self.order = RecordOrder(sortDescriptors)
    }

    /// Sorts `records` in place; throws when a sort key is not an attribute of a record's entity.
    public func sort(_ records: inout [Record]) throws {
        try sort(&records) { $0 }
    }

    /// Sorts any elements that carry a record (for example records paired with their store).
    public func sort<Element>(_ elements: inout [Element], by record: (Element) -> Record) throws {
        var ordinals: [String: [Int]] = [:]
        for element in elements {
            let entity = record(element).id.entity
            if ordinals[entity] != nil { continue }
            ordinals[entity] = try order.ordinals(in: entity, schema: schema)
        }
        let order = self.order
        if ordinals.count <= 1 || Set(ordinals.values).count == 1 {
            // One layout of the sort keys (one entity, or sub-entities sharing the ordinals):
            // no lookup per comparison.
            let shared = ordinals.values.first ?? []
            elements.sort { order.precedes(record($0), ordinals: shared, record($1), ordinals: shared) }
        } else {
            elements.sort { x, y in
                let a = record(x), b = record(y)
                return order.precedes(a, ordinals: ordinals[a.id.entity] ?? [], b, ordinals: ordinals[b.id.entity] ?? [])
            }
        }
    }
}
