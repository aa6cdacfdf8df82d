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

    /// The first `count` of `records` in this order: exactly the prefix a full sort gives (the
    /// order is total, record keys being unique), found in one pass that keeps only the best
    /// `count` records (each record's sort values are read once), so a limited fetch over n
    /// records costs about n comparisons instead of a sort of all n. Large prefixes are sorted
    /// in full.
    public func sortedPrefix(_ records: [Record], count: Int) throws -> [Record] {
        guard count > 0 else { return [] }
        if count > 1024 || count >= records.count / 4 {
            var all = records
            try sort(&all)
            return Array(all.prefix(count))
        }
        var ranking = RankedEntries<Int>(order: order, capacity: count)
        var ordinalsByEntity: [String: [Int]] = [:]
        var entity = ""
        var ordinals: [Int] = []
        var scratch = [Value](filledWith: .null, count: order.keyCount)
        for (index, record) in records.enumerated() {
            if index == 0 || record.id.entity != entity {
                entity = record.id.entity
                if let known = ordinalsByEntity[entity] {
                    ordinals = known
                } else {
                    ordinals = try order.ordinals(in: entity, schema: schema)
                    ordinalsByEntity[entity] = ordinals
                }
            }
            for k in ordinals.indices { scratch[k] = record.attributes[ordinals[k]] }
            ranking.add(scratch, key: record.id.key) { index }
        }
        return ranking.payloads().map { records[$0] }
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
