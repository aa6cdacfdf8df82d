import Foundation

/// The reference semantics of ``AggregateRequest``: every backend must return exactly the rows
/// this evaluator returns.
///
/// The evaluator works on records that are already selected (entity, sub-entities and
/// predicate applied). `InMemoryStore` answers with it, the core uses it for results it combines
/// itself (pending changes, several stores), and ``StorageReader/aggregate(_:schema:)``'s default
/// implementation uses it for backends that do not push aggregates down.
///
/// ## Grouped and ungrouped requests
/// - A request is **grouped** when it has `groupBy` keys or any aggregate of an *attribute*
///   (``AggregateFunction/count``, `sum`, `average`, `minimum`, `maximum`).
/// - A grouped request yields one row per group of records with equal `groupBy` values (equal in
///   ``Value/storageOrder(_:_:)``, so `0.0` and `-0.0`, or `1` and `1.0`, share a group whose value
///   is the one of its record with the lowest key). Without `groupBy` keys all records form one
///   group, so there is exactly one row, even over zero records.
/// - In a grouped request every ``AggregateFunction/value`` term must name a `groupBy` key, every
///   sort key must be a `groupBy` key, and a relationship cannot be counted; otherwise the request
///   throws ``StorageError/invalidRequest(_:)``.
/// - Groups are ordered in ``RecordOrder`` by the sort descriptors, then by the remaining
///   `groupBy` keys ascending (in their listed order).
/// - An ungrouped request yields one row per record in fetch order (``RecordOrder``: by the sort
///   descriptors, ties and unsorted requests by record key). Its terms are attribute values
///   and ``AggregateFunction/count`` of a relationship, the number of each record's destinations.
/// - `limit` and `offset` apply to the output rows.
///
/// ## Aggregates
/// Each aggregate of a group is an ``AggregateAccumulator`` fed the group's values in record key
/// order, so floating-point sums are reproducible; that type states the arithmetic (`nil`
/// skipped, `count` of no values `0` and the others ``Value/null``, exact integer sums that
/// throw ``StorageError/invalidRequest(_:)`` on overflow, double and decimal totals, averages,
/// `minimum` and `maximum` in ``Value/storageOrder(_:_:)`` skipping NaN). `sum` or `average` of a
/// string, URL, date, bytes or UUID attribute throws ``StorageError/invalidRequest(_:)`` naming
/// the attribute, whatever the records.
///
/// Unknown entities and keys throw ``StorageError/unknownEntity(_:)`` and
/// ``StorageError/unknownKey(key:entity:)``; every check that does not depend on the records'
/// values happens before any record is read (see ``validate(_:)``).
public struct AggregateEvaluator: Sendable {
    private let schema: StoreSchema

    /// Creates an evaluator for records of `schema`.
    public init(schema: StoreSchema) {
        self.schema = schema
    }

    /// Throws what ``rows(_:records:)`` would throw for any records (except a sum overflow).
    public func validate(_ request: AggregateRequest) throws {
        _ = try plan(request)
    }

    /// Whether the request is grouped (see the type's semantics).
    public func isGrouped(_ request: AggregateRequest) throws -> Bool {
        try plan(request).isGrouped
    }

    /// The rows of `request` over `records`: exactly the records the request selects, in any order.
    public func rows(_ request: AggregateRequest, records: [Record]) throws -> [[Value]] {
        let plan = try plan(request)
        if plan.isGrouped {
            return RecordWindow.apply(try groupedRows(plan, records), offset: request.offset, limit: request.limit)
        }
        var ordered = records
        try RecordSorter(schema: schema, sortDescriptors: request.sortDescriptors).sort(&ordered)
        return try project(plan, RecordWindow.apply(ordered, offset: request.offset, limit: request.limit))
    }

    /// The rows of an ungrouped request over records that are already ordered and windowed: one
    /// row per record, in the given order. Throws for a grouped request.
    ///
    /// For callers that order and window records themselves, such as the core combining the
    /// results of several stores.
    public func projectedRows(_ request: AggregateRequest, orderedRecords records: [Record]) throws -> [[Value]] {
        let plan = try plan(request)
        guard !plan.isGrouped else {
            throw StorageError.invalidRequest("a grouped request cannot be answered one row per record")
        }
        return try project(plan, records)
    }

    // MARK: Planning

    private enum Column {
        /// An attribute's value, per record (ungrouped).
        case attribute(String)
        /// The group's value of the order key at this index (grouped).
        case groupKey(Int)
        /// The number of destinations of a relationship, per record (ungrouped).
        case relationshipCount(String)
        /// An aggregate of an attribute over a group.
        case aggregate(AggregateFunction, key: String, type: AttributeType)
    }

    private struct Plan {
        var isGrouped: Bool
        var columns: [Column]
        /// Grouped only: the sort descriptors, then the other group keys ascending.
        var orderKeys: [RecordSortDescriptor]
    }

    private func plan(_ request: AggregateRequest) throws -> Plan {
        let entity = request.entity
        guard let description = schema.entity(named: entity) else { throw StorageError.unknownEntity(entity) }
        func attributeType(_ key: String) -> AttributeType? {
            schema.attributeOrdinal(key, in: entity).map { description.attributes[$0].type }
        }
        func isRelationship(_ key: String) -> Bool {
            schema.relationshipOrdinal(key, in: entity) != nil
        }
        for term in request.terms where attributeType(term.key) == nil && !isRelationship(term.key) {
            throw StorageError.unknownKey(key: term.key, entity: entity)
        }
        for key in request.groupBy + request.sortDescriptors.map(\.key) where attributeType(key) == nil {
            if isRelationship(key) {
                throw StorageError.invalidRequest("'\(key)' is a relationship of '\(entity)'; only attributes can group or sort rows")
            }
            throw StorageError.unknownKey(key: key, entity: entity)
        }
        let isGrouped = !request.groupBy.isEmpty
            || request.terms.contains { $0.function != .value && attributeType($0.key) != nil }

        var orderKeys: [RecordSortDescriptor] = []
        if isGrouped {
            if let sort = request.sortDescriptors.first(where: { !request.groupBy.contains($0.key) }) {
                throw StorageError.invalidRequest("a grouped request can only be sorted by its groupBy keys, and '\(sort.key)' is not one")
            }
            orderKeys = request.groupOrderKeys
        }

        let columns = try request.terms.map { term throws -> Column in
            let key = term.key
            guard let type = attributeType(key) else {
                guard term.function == .count else {
                    throw StorageError.invalidRequest("'\(key)' is a relationship of '\(entity)'; of a relationship only the count can be selected, not \(term.function.rawValue)")
                }
                guard !isGrouped else {
                    throw StorageError.invalidRequest("count of the relationship '\(key)' is one number per record, so it cannot be combined with groupBy keys or aggregates of attributes")
                }
                return .relationshipCount(key)
            }
            switch term.function {
            case .value:
                guard isGrouped else { return .attribute(key) }
                guard let index = orderKeys.firstIndex(where: { $0.key == key }) else {
                    throw StorageError.invalidRequest("'\(key)' is selected without an aggregate in a grouped request, so it must be one of the groupBy keys")
                }
                return .groupKey(index)
            case .sum, .average:
                guard Self.isNumeric(type) else {
                    throw StorageError.invalidRequest("cannot compute the \(term.function.rawValue) of '\(key)' of '\(entity)': it is a \(type.rawValue) attribute, not a number")
                }
                return .aggregate(term.function, key: key, type: type)
            case .count, .minimum, .maximum:
                return .aggregate(term.function, key: key, type: type)
            }
        }
        return Plan(isGrouped: isGrouped, columns: columns, orderKeys: orderKeys)
    }

    private static func isNumeric(_ type: AttributeType) -> Bool {
        switch type {
        case .bool, .integer, .double, .decimal: return true
        case .string, .bytes, .date, .uuid, .url: return false
        }
    }

    // MARK: Rows

    private func project(_ plan: Plan, _ records: [Record]) throws -> [[Value]] {
        try records.map { record in
            try plan.columns.map { column in
                switch column {
                case .attribute(let key):
                    return try value(record, key)
                case .relationshipCount(let key):
                    guard let ordinal = schema.relationshipOrdinal(key, in: record.id.entity), ordinal < record.relationships.count else {
                        throw StorageError.unknownKey(key: key, entity: record.id.entity)
                    }
                    return .int(Int64(record.relationships[ordinal].count))
                case .groupKey, .aggregate:
                    throw StorageError.invalidRequest("an ungrouped request has an aggregate column")
                }
            }
        }
    }

    private func groupedRows(_ plan: Plan, _ records: [Record]) throws -> [[Value]] {
        let orderKeys = plan.orderKeys
        let order = RecordOrder(orderKeys)
        var entries = try records.map { record in (record: record, keys: try orderKeys.map { try value(record, $0.key) }) }
        entries.sort { a, b in order.precedes(a.keys, key: a.record.id.key, b.keys, key: b.record.id.key) }
        var groups: [ArraySlice<(record: Record, keys: [Value])>] = []
        if orderKeys.isEmpty {
            groups = [entries[...]]
        } else {
            var start = 0
            for i in entries.indices.dropFirst() where order.compareSortValues(entries[i - 1].keys, entries[i].keys) != 0 {
                groups.append(entries[start..<i])
                start = i
            }
            if start < entries.count { groups.append(entries[start...]) }
        }
        return try groups.map { group in
            try plan.columns.map { column in
                switch column {
                case .groupKey(let index):
                    guard let first = group.first else { return .null }
                    return first.keys[index]
                case .aggregate(let function, let key, let type):
                    // The group is in record key order within its equal keys: the order values combine in.
                    var accumulator = AggregateAccumulator(function, of: type)
                    for entry in group { accumulator.add(try value(entry.record, key)) }
                    return try accumulator.result(for: key)
                case .attribute, .relationshipCount:
                    throw StorageError.invalidRequest("a grouped request has a per-record column")
                }
            }
        }
    }

    private func value(_ record: Record, _ key: String) throws -> Value {
        guard let ordinal = schema.attributeOrdinal(key, in: record.id.entity), ordinal < record.attributes.count else {
            throw StorageError.unknownKey(key: key, entity: record.id.entity)
        }
        return record.attributes[ordinal]
    }
}
