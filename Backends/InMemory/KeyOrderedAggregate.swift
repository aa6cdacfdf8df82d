import CoreStoreStorage

/// A grouped ``AggregateRequest`` computed from the selected records in two linear steps, with
/// exactly ``AggregateEvaluator``'s rows for the cases it accepts, and without the evaluator's
/// sort of every record by its group values.
///
/// ``add(_:)`` takes the records in any order: it files each under the group of its
/// ``ValueKey/orderKey(_:)`` tuple and keeps its key and the values to aggregate. ``rows()`` then
/// combines every group's values in key order (see ``RecordKeyOrder``).
///
/// Why the rows are the same: the evaluator sorts the records by their group values (then by
/// key), cuts runs of values equal in ``Value/storageOrder(_:_:)``, reports each run's values from
/// its lowest-key record and combines each run's values in key order. Here groups are equal
/// ``ValueKey/orderKey(_:)`` tuples, which are equal exactly when storage order calls the values
/// equal; each group reports the values of its lowest-key record, and its values are combined in
/// key order with the evaluator's own steps. Storage order is a total order on the group values
/// accepted here (no decimals, which compare with doubles through rounding, and no NaN dates), so
/// the groups, finally sorted by the sort descriptors then the other `groupBy` keys, come out in
/// the evaluator's order.
///
/// Each group's values are combined by ``AggregateAccumulator``, the arithmetic the evaluator
/// itself uses. Not accepted: a decimal or NaN date as a group value, a record without one of
/// the attributes, or an aggregate whose result throws (such as "sum overflows"): then
/// ``add(_:)`` returns `false` or ``rows()`` returns `nil`, and the caller asks the evaluator
/// instead (which then throws what it throws).
struct KeyOrderedAggregate: RecordSink {
    /// What one output column holds.
    private enum Column {
        /// The group's value of the order key at this index.
        case groupKey(Int)
        /// An aggregate of the attribute at this index of ``keys``, of this type.
        case aggregate(AggregateFunction, keyIndex: Int, type: AttributeType)
    }

    private let schema: StoreSchema
    /// The sort descriptors, then the other `groupBy` keys ascending (the evaluator's order keys).
    private let orderKeys: [RecordSortDescriptor]
    /// The attributes read from each record: the order keys, then the aggregated ones.
    private let keys: [String]
    /// One per term of the request.
    private let columns: [Column]
    /// The number of ``Column/aggregate(_:keyIndex:type:)`` columns: values kept per record.
    private let aggregateCount: Int

    /// The key of each added record.
    private var rowKeys: [Int64] = []
    /// The group of each added record (empty without order keys: all are in group 0).
    private var rowGroups: [Int] = []
    /// The values each aggregate column combines, ``aggregateCount`` per added record.
    private var rowValues: [Value] = []
    /// The group of each key tuple.
    private var groups = GroupIndex()
    /// Each group's order-key values, from its lowest-key record.
    private var groupValues: [[Value]] = []
    /// The key of each group's lowest-key record.
    private var groupFirstKeys: [Int64] = []
    /// The entity whose ordinals ``ordinals`` holds.
    private var entity: String?
    /// The ordinal of each of ``keys`` in ``entity``.
    private var ordinals: [Int] = []
    /// The keys of a tuple beyond its first, reused from record to record.
    private var rest: [ValueKey] = []

    /// The plan for `request`, which the evaluator validated and found grouped; `nil` when a term
    /// is not accepted (see the type's description).
    init?(_ request: AggregateRequest, schema: StoreSchema) {
        guard let description = schema.entity(named: request.entity) else { return nil }
        let orderKeys = request.groupOrderKeys
        var keys = orderKeys.map(\.key)
        var columns: [Column] = []
        for term in request.terms {
            guard let ordinal = schema.attributeOrdinal(term.key, in: request.entity) else { return nil }
            let type = description.attributes[ordinal].type
            if term.function == .value {
                guard let index = orderKeys.firstIndex(where: { $0.key == term.key }) else { return nil }
                columns.append(.groupKey(index))
                continue
            }
            columns.append(.aggregate(term.function, keyIndex: keys.count, type: type))
            keys.append(term.key)
        }
        self.schema = schema
        self.orderKeys = orderKeys
        self.keys = keys
        self.columns = columns
        self.aggregateCount = keys.count - orderKeys.count
        if orderKeys.isEmpty {
            // Without groupBy keys every record is in one group, which exists even over no records.
            groupValues = [[]]
            groupFirstKeys = [Int64.min]
        }
    }

    /// Makes room for `count` records.
    mutating func reserveCapacity(_ count: Int) {
        rowKeys.reserveCapacity(count)
        if !orderKeys.isEmpty { rowGroups.reserveCapacity(count) }
        rowValues.reserveCapacity(count * aggregateCount)
    }

    /// Adds one selected record (records may come in any order, each once); `false` when it
    /// leaves the accepted cases.
    mutating func add(_ record: Record) -> Bool {
        if record.id.entity != entity {
            var resolved: [Int] = []
            for key in keys {
                guard let ordinal = schema.attributeOrdinal(key, in: record.id.entity), ordinal < record.attributes.count else { return false }
                resolved.append(ordinal)
            }
            entity = record.id.entity
            ordinals = resolved
        }
        let key = record.id.key
        return record.attributes.withUnsafeBufferPointer { attributes in
            let groupKeyCount = orderKeys.count
            if groupKeyCount > 0 {
                guard let first = ValueKey.orderKey(attributes[ordinals[0]]) else { return false }
                rest.removeAll(keepingCapacity: true)
                for ordinal in ordinals[1..<groupKeyCount] {
                    guard let next = ValueKey.orderKey(attributes[ordinal]) else { return false }
                    rest.append(next)
                }
                let group: Int
                if let existing = groups.group(first, rest) {
                    group = existing
                    if key < groupFirstKeys[group] {
                        groupValues[group] = ordinals[0..<groupKeyCount].map { attributes[$0] }
                        groupFirstKeys[group] = key
                    }
                } else {
                    group = groupValues.count
                    groups.insert(first, rest, group: group)
                    groupValues.append(ordinals[0..<groupKeyCount].map { attributes[$0] })
                    groupFirstKeys.append(key)
                }
                rowGroups.append(group)
            }
            rowKeys.append(key)
            for ordinal in ordinals[groupKeyCount...] {
                rowValues.append(attributes[ordinal])
            }
            return true
        }
    }

    /// Adds `record` (see ``add(_:)``); a declined record stops the scan.
    mutating func take(_ record: Record) -> Bool {
        add(record)
    }

    /// The rows, before offset and limit, combining each group's values in key order; `nil` when
    /// an aggregate's result throws (the evaluator then reports it).
    func rows() -> [[Value]]? {
        let width = columns.count
        let aggregateCount = self.aggregateCount
        let aggregates: [(column: Int, value: Int)] = columns.enumerated().compactMap { c, column in
            guard case .aggregate(_, let keyIndex, _) = column else { return nil }
            return (c, keyIndex - orderKeys.count)
        }
        // One accumulator per aggregate column per group (group key columns hold a placeholder).
        let template = columns.map { column -> AggregateAccumulator in
            if case .aggregate(let function, _, let type) = column { return AggregateAccumulator(function, of: type) }
            return AggregateAccumulator(.count, of: .integer)
        }
        var accumulators: [AggregateAccumulator] = []
        accumulators.reserveCapacity(groupValues.count * width)
        for _ in groupValues.indices { accumulators.append(contentsOf: template) }
        let grouped = !orderKeys.isEmpty
        let order = RecordKeyOrder.ascending(rowKeys)
        rowValues.withUnsafeBufferPointer { values in
            rowGroups.withUnsafeBufferPointer { groups in
                accumulators.withUnsafeMutableBufferPointer { accumulators in
                    for position in order {
                        let base = (grouped ? groups[position] : 0) * width
                        for aggregate in aggregates {
                            accumulators[base + aggregate.column].add(values[position * aggregateCount + aggregate.value])
                        }
                    }
                }
            }
        }
        return try? rowsInRequestOrder(groupValues, accumulators)
    }

    /// One row per group, ordered by the sort descriptors, then the other `groupBy` keys.
    private func rowsInRequestOrder(_ groupValues: [[Value]], _ accumulators: [AggregateAccumulator]) throws -> [[Value]] {
        let orderKeys = self.orderKeys
        let width = columns.count
        let order = groupValues.indices.sorted { a, b in
            for (i, key) in orderKeys.enumerated() {
                let c = Value.storageOrder(groupValues[a][i], groupValues[b][i])
                if c != 0 { return key.ascending ? c < 0 : c > 0 }
            }
            return false
        }
        return try order.map { group in
            try columns.enumerated().map { c, column in
                switch column {
                case .groupKey(let index):
                    return groupValues[group][index]
                case .aggregate(_, let keyIndex, _):
                    return try accumulators[group * width + c].result(for: keys[keyIndex])
                }
            }
        }
    }
}

/// The group of each key tuple seen so far: a map from ``KeyTuple`` to group number, with one-key
/// tuples holding a small non-negative integer (a typical category) kept in an array instead of
/// being hashed.
private struct GroupIndex {
    /// One-key integer tuples below this are kept in ``small``.
    static let smallLimit: Int64 = 1_024

    /// The group of each small integer, `-1` for none; allocated on first use.
    private var small: [Int] = []
    /// The groups of the other tuples.
    private var others: [KeyTuple: Int] = [:]

    /// The group of the tuple (`first`, `rest`…), if it has one.
    func group(_ first: ValueKey, _ rest: [ValueKey]) -> Int? {
        if rest.isEmpty, case .integer(let i) = first, i >= 0, i < Self.smallLimit {
            let group = small.isEmpty ? -1 : small[Int(i)]
            return group >= 0 ? group : nil
        }
        return others[KeyTuple(first: first, rest: rest)]
    }

    /// Records `group` as the group of the tuple (`first`, `rest`…).
    mutating func insert(_ first: ValueKey, _ rest: [ValueKey], group: Int) {
        if rest.isEmpty, case .integer(let i) = first, i >= 0, i < Self.smallLimit {
            if small.isEmpty { small = Array(repeating: -1, count: Int(Self.smallLimit)) }
            small[Int(i)] = group
        } else {
            others[KeyTuple(first: first, rest: rest)] = group
        }
    }
}
