/// Sorts records by sort descriptors with the reference order: ``Value/storageOrder(_:_:)``
/// per key (nil first when ascending), ties broken by record key.
public struct RecordSorter: Sendable {
    private let schema: StoreSchema
    private let sortDescriptors: [RecordSortDescriptor]

    /// Creates a sorter.
    public init(schema: StoreSchema, sortDescriptors: [RecordSortDescriptor]) {
        self.schema = schema
        self.sortDescriptors = sortDescriptors
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
            ordinals[entity] = try sortDescriptors.map { descriptor in
                guard let ordinal = schema.attributeOrdinal(descriptor.key, in: entity) else {
                    throw StorageError.unknownKey(key: descriptor.key, entity: entity)
                }
                return ordinal
            }
        }
        let descriptors = sortDescriptors
        elements.sort { x, y in
            let a = record(x), b = record(y)
            if let ao = ordinals[a.id.entity], let bo = ordinals[b.id.entity] {
                for (k, descriptor) in descriptors.enumerated() {
                    let c = Value.storageOrder(a.attributes[ao[k]], b.attributes[bo[k]])
                    if c != 0 { return descriptor.ascending ? c < 0 : c > 0 }
                }
            }
            return a.id.key < b.id.key
        }
    }
}
