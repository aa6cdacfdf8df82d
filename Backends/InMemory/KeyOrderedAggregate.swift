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
/// Accepted: `count`, `minimum` and `maximum` of any attribute, and `sum` and `average` of an
/// integer attribute holding `int`s (without overflow at any step) or of a double attribute
/// holding `double`s. Anything else — another attribute type, a decimal or NaN date as a group
/// value, another value case, an overflow, a record without one of the attributes — makes
/// ``add(_:)`` return `false` or ``rows()`` return `nil`, and the caller asks the evaluator
/// instead (which then also throws what it throws, such as "sum overflows").
struct KeyOrderedAggregate: RecordSink {
    /// What one output column holds.
    private enum Column {
        /// The group's value of the order key at this index.
        case groupKey(Int)
        /// An aggregate of the attribute at this index of ``keys``.
        case aggregate(AggregateFunction, keyIndex: Int, isDouble: Bool)
    }

    /// The running state of one aggregate column in one group.
    private struct Accumulator {
        /// The number of non-nil values combined.
        var count: Int64 = 0
        /// The running sum of a double attribute, in key order, starting at `0.0`.
        var doubleTotal = 0.0
        /// The running sum of an integer attribute.
        var integerTotal: Int64 = 0
        /// The minimum or maximum so far.
        var best: Value?
    }

    private let schema: StoreSchema
    /// The sort descriptors, then the other `groupBy` keys ascending (the evaluator's order keys).
    private let orderKeys: [RecordSortDescriptor]
    /// The attributes read from each record: the order keys, then the aggregated ones.
    private let keys: [String]
    /// One per term of the request.
    private let columns: [Column]
    /// The number of ``Column/aggregate(_:keyIndex:isDouble:)`` columns: values kept per record.
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
    /// a value leaves the accepted cases.
    func rows() -> [[Value]]? {
        let width = columns.count
        let aggregateCount = self.aggregateCount
        var accumulators = Array(repeating: Accumulator(), count: groupValues.count * width)
        let aggregates: [(column: Int, value: Int, function: AggregateFunction, isDouble: Bool)] = columns.enumerated().compactMap { c, column in
            guard case .aggregate(let function, let keyIndex, let isDouble) = column else { return nil }
            return (c, keyIndex - orderKeys.count, function, isDouble)
        }
        let grouped = !orderKeys.isEmpty
        let order = RecordKeyOrder.ascending(rowKeys)
        let combined = rowValues.withUnsafeBufferPointer { values in
            rowGroups.withUnsafeBufferPointer { groups in
                accumulators.withUnsafeMutableBufferPointer { accumulators in
                    for position in order {
                        let base = (grouped ? groups[position] : 0) * width
                        for aggregate in aggregates {
                            let value = values[position * aggregateCount + aggregate.value]
                            if value.isNull { continue }
                            guard Self.combine(value, aggregate.function, aggregate.isDouble, into: &accumulators[base + aggregate.column]) else { return false }
                        }
                    }
                    return true
                }
            }
        }
        return combined ? rowsInRequestOrder(groupValues, accumulators) : nil
    }

    /// One row per group, ordered by the sort descriptors, then the other `groupBy` keys.
    private func rowsInRequestOrder(_ groupValues: [[Value]], _ accumulators: [Accumulator]) -> [[Value]] {
        let orderKeys = self.orderKeys
        let width = columns.count
        let order = groupValues.indices.sorted { a, b in
            for (i, key) in orderKeys.enumerated() {
                let c = Value.storageOrder(groupValues[a][i], groupValues[b][i])
                if c != 0 { return key.ascending ? c < 0 : c > 0 }
            }
            return false
        }
        return order.map { group in
            columns.enumerated().map { c, column in
                switch column {
                case .groupKey(let index):
                    return groupValues[group][index]
                case .aggregate(let function, _, let isDouble):
                    return Self.result(accumulators[group * width + c], function, isDouble)
                }
            }
        }
    }

    /// Combines one non-nil value as the evaluator does; `false` when the value is outside the
    /// accepted cases.
    private static func combine(_ value: Value, _ function: AggregateFunction, _ isDouble: Bool, into a: inout Accumulator) -> Bool {
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
