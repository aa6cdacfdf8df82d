import CoreStoreStorage

extension KeyValueStorageReader {
    /// Grouped requests whose aggregates stream (see ``StreamingAggregate``) are computed while
    /// the matching records are scanned, from the attributes they need; every other request, and
    /// one whose values leave the streamed cases, is answered by fetching the records and running
    /// ``AggregateEvaluator`` (``StorageReader/aggregateByFetching(_:schema:)``).
    func aggregate(_ request: AggregateRequest, schema: StoreSchema) throws -> [[Value]] {
        let evaluator = AggregateEvaluator(schema: schema)
        try evaluator.validate(request)
        guard try evaluator.isGrouped(request), var aggregate = StreamingAggregate(request, layout: layout) else {
            return try aggregateByFetching(request, schema: schema)
        }
        let fetch = FetchRequest(entity: request.entity, includesSubentities: request.includesSubentities, predicate: request.predicate)
        let plan = try FetchPlanner(layout: layout).plan(fetch)
        var streamed = true
        try forEachMatch(fetch.predicate, plan, entity: fetch.entity) { candidate, entity in
            streamed = try aggregate.add(candidate, entity: entity)
            return streamed
        }
        guard streamed else { return try aggregateByFetching(request, schema: schema) }
        return RecordWindow.apply(aggregate.rows(), offset: request.offset, limit: request.limit)
    }
}

/// A grouped ``AggregateRequest`` computed in one pass over the matching records, with exactly
/// ``AggregateEvaluator``'s results for the cases it accepts.
///
/// Why the results are the same: matches arrive in record-key order (an unordered fetch plan),
/// so a group's first record has its lowest key — the one whose `groupBy` values the evaluator
/// reports — and every aggregate sees its group's values in record-key order, as the evaluator
/// combines them. Groups are equal `groupBy` tuples in ``Value/storageOrder(_:_:)``, found by
/// binary search in a list kept sorted in that order, and finally ordered by the sort
/// descriptors, then the other `groupBy` keys ascending.
///
/// Streamed: `count`, `minimum` and `maximum` of any attribute, and `sum` and `average` of an
/// integer attribute holding `int`s (without overflow) or a double attribute holding `double`s.
/// Anything else — another attribute type or value case, an overflow, a record without one of
/// the attributes, a NaN date as a group value, more than ``maximumGroups`` groups — makes
/// ``add(_:entity:)`` return `false`, and the caller falls back to the evaluator.
struct StreamingAggregate {
    /// Beyond this many groups, inserting into the sorted group list would cost too much.
    static let maximumGroups = 4_096

    /// What one output column holds.
    private enum Column {
        /// The group's value of the order key at this index.
        case groupKey(Int)
        /// An aggregate of the attribute at this index of ``keys``.
        case aggregate(AggregateFunction, keyIndex: Int, isDouble: Bool)
    }

    /// The running state of one aggregate column in one group.
    private struct Accumulator {
        /// The number of values combined (non-nil ones).
        var count: Int64 = 0
        /// The running sum of a double attribute, in record-key order.
        var doubleTotal = 0.0
        /// The running sum of an integer attribute.
        var integerTotal: Int64 = 0
        /// The minimum or maximum so far.
        var best: Value?
    }

    /// One group: its `groupBy` values (in order-key order) and its accumulators.
    private struct Group {
        /// The `groupBy` values of the group's first (lowest-key) record.
        var keys: [Value]
        /// One per column (unused for group-key columns).
        var accumulators: [Accumulator]
    }

    /// The layout, for ordinals and entity names.
    private let layout: KeyValueLayout
    /// The sort descriptors, then the other `groupBy` keys ascending (the evaluator's order keys).
    private let orderKeys: [RecordSortDescriptor]
    /// The attributes read from each record: the order keys, then the aggregated ones.
    private let keys: [String]
    /// One per term of the request.
    private let columns: [Column]
    /// Per entity index: the ordinal of each of ``keys``, resolved on the entity's first record.
    private var ordinals: [[Int]?]
    /// The groups, ascending in storage order of their keys.
    private var groups: [Group] = []
    /// The group values of the record being added; reused, copied only for a new group.
    private var scratch: [Value] = []

    /// The plan for `request`, which the evaluator validated and found grouped; `nil` when a
    /// term is not streamed (see the type's description).
    init?(_ request: AggregateRequest, layout: KeyValueLayout) {
        self.layout = layout
        let schema = layout.schema
        guard let description = schema.entity(named: request.entity) else { return nil }
        var orderKeys: [RecordSortDescriptor] = []
        for sort in request.sortDescriptors where !orderKeys.contains(where: { $0.key == sort.key }) { orderKeys.append(sort) }
        for key in request.groupBy where !orderKeys.contains(where: { $0.key == key }) {
            orderKeys.append(RecordSortDescriptor(key: key, ascending: true))
        }
        var keys = orderKeys.map(\.key)
        var columns: [Column] = []
        for term in request.terms {
            guard let ordinal = schema.attributeOrdinal(term.key, in: request.entity) else { return nil }
            let type = description.attributes[ordinal].type
            switch term.function {
            case .value:
                guard let index = orderKeys.firstIndex(where: { $0.key == term.key }) else { return nil }
                columns.append(.groupKey(index))
                continue
            case .sum, .average:
                guard type == .double || type == .integer else { return nil }
            case .count, .minimum, .maximum:
                break
            }
            columns.append(.aggregate(term.function, keyIndex: keys.count, isDouble: type == .double))
            keys.append(term.key)
        }
        self.orderKeys = orderKeys
        self.keys = keys
        self.columns = columns
        ordinals = Array(repeating: nil, count: layout.entityNames.names.count)
        if orderKeys.isEmpty {
            // Without groupBy keys every record is in one group, which exists even over no records.
            groups = [Group(keys: [], accumulators: Array(repeating: Accumulator(), count: columns.count))]
        }
    }

    /// Adds the candidate, a record of the entity at `entity`; `false` when the request leaves
    /// the streamed cases (the caller then falls back to the evaluator).
    mutating func add(_ candidate: ScanCandidate, entity: Int) throws -> Bool {
        if ordinals[entity] == nil {
            let name = layout.entityNames.names[entity]
            var resolved: [Int] = []
            for key in keys {
                guard let ordinal = layout.schema.attributeOrdinal(key, in: name) else { return false }
                resolved.append(ordinal)
            }
            ordinals[entity] = resolved
        }
        guard let entityOrdinals = ordinals[entity] else { return false }
        scratch.removeAll(keepingCapacity: true)
        for ordinal in entityOrdinals.prefix(orderKeys.count) {
            let value = try candidate.attribute(ordinal)
            // NaN dates are not totally ordered by storageOrder; binary search needs that.
            if case .date(let date) = value, date.timeIntervalSinceReferenceDate.isNaN { return false }
            scratch.append(value)
        }
        let groupIndex: Int
        if orderKeys.isEmpty {
            groupIndex = 0
        } else {
            var low = 0, high = groups.count
            while low < high {
                let middle = (low + high) / 2
                if Self.order(groups[middle].keys, scratch) < 0 { low = middle + 1 } else { high = middle }
            }
            if low < groups.count, Self.order(groups[low].keys, scratch) == 0 {
                groupIndex = low
            } else {
                guard groups.count < Self.maximumGroups else { return false }
                groups.insert(Group(keys: scratch, accumulators: Array(repeating: Accumulator(), count: columns.count)), at: low)
                groupIndex = low
            }
        }
        for (c, column) in columns.enumerated() {
            guard case .aggregate(let function, let keyIndex, let isDouble) = column else { continue }
            let value = try candidate.attribute(entityOrdinals[keyIndex])
            if value.isNull { continue }
            if try !Self.combine(value, function, isDouble, into: &groups[groupIndex].accumulators[c]) { return false }
        }
        return true
    }

    /// The rows, one per group in the request's order, before offset and limit.
    func rows() -> [[Value]] {
        let orderKeys = self.orderKeys
        let ordered = groups.sorted { a, b in
            for (i, key) in orderKeys.enumerated() {
                let c = Value.storageOrder(a.keys[i], b.keys[i])
                if c != 0 { return key.ascending ? c < 0 : c > 0 }
            }
            return false
        }
        return ordered.map { group in
            columns.enumerated().map { c, column in
                switch column {
                case .groupKey(let index):
                    return group.keys[index]
                case .aggregate(let function, _, let isDouble):
                    return Self.result(group.accumulators[c], function, isDouble)
                }
            }
        }
    }

    /// Lexicographic storage order of two key tuples, every key ascending.
    private static func order(_ a: [Value], _ b: [Value]) -> Int {
        for i in a.indices {
            let c = Value.storageOrder(a[i], b[i])
            if c != 0 { return c }
        }
        return 0
    }

    /// Combines one non-nil value; `false` when the value is outside the streamed cases.
    private static func combine(_ value: Value, _ function: AggregateFunction, _ isDouble: Bool, into a: inout Accumulator) throws -> Bool {
        switch function {
        case .count:
            a.count += 1
        case .sum, .average:
            if isDouble {
                guard case .double(let d) = value else { return false }
                a.doubleTotal += d
            } else {
                guard case .int(let i) = value else { return false }
                let (total, overflow) = a.integerTotal.addingReportingOverflow(i)
                if overflow { return false }
                a.integerTotal = total
            }
            a.count += 1
        case .minimum, .maximum:
            // The evaluator's own scan: same values, same order, same comparisons.
            if case .double(let d) = value, d.isNaN { return true }
            guard let current = a.best else {
                a.best = value
                return true
            }
            let c = Value.storageOrder(value, current)
            if function == .minimum ? c < 0 : c > 0 { a.best = value }
        case .value:
            return false
        }
        return true
    }

    /// The aggregate's value, as the evaluator computes it from the same values.
    private static func result(_ a: Accumulator, _ function: AggregateFunction, _ isDouble: Bool) -> Value {
        switch function {
        case .count:
            return .int(a.count)
        case .sum:
            guard a.count > 0 else { return .null }
            return isDouble ? .double(a.doubleTotal) : .int(a.integerTotal)
        case .average:
            guard a.count > 0 else { return .null }
            return .double((isDouble ? a.doubleTotal : Double(a.integerTotal)) / Double(a.count))
        case .minimum, .maximum:
            return a.best ?? .null
        case .value:
            return .null
        }
    }
}
