import CoreStoreStorage

extension KeyValueStorageReader {
    /// Unfiltered counts, sums and averages of integer and double attributes over all records
    /// are read from the stored totals (see ``AttributeTotalsAnswer``). Grouped requests that
    /// ask only about one indexed group key are answered from the index's entries (see
    /// ``IndexOnlyGroups``), and the minimum and maximum of indexed attributes from the ends of
    /// their indexes (``IndexOnlyExtremes``). Other grouped requests
    /// whose aggregates stream (see ``StreamingAggregate``) are computed while the matching
    /// records are scanned, from the attributes they need; every other request, and one whose
    /// values leave the streamed cases, is answered by fetching the records and running
    /// ``AggregateEvaluator`` (``StorageReader/aggregateByFetching(_:schema:)``).
    func aggregate(_ request: AggregateRequest, schema: StoreSchema) throws -> [[Value]] {
        let evaluator = AggregateEvaluator(schema: schema)
        try evaluator.validate(request)
        guard try evaluator.isGrouped(request) else { return try aggregateByFetching(request, schema: schema) }
        if let fromTotals = AttributeTotalsAnswer(request, schema: schema), let row = try fromTotals.row(in: snapshot, layout: layout) {
            return RecordWindow.apply([row], offset: request.offset, limit: request.limit)
        }
        let fetch = FetchRequest(entity: request.entity, includesSubentities: request.includesSubentities, predicate: request.predicate)
        let plan = try FetchPlanner(layout: layout).plan(fetch)
        if let fromIndex = IndexOnlyGroups(request, plan: plan, layout: layout), let rows = try fromIndex.rows(in: snapshot) {
            return RecordWindow.apply(rows, offset: request.offset, limit: request.limit)
        }
        if let fromIndex = IndexOnlyExtremes(request, plan: plan, layout: layout), let row = try fromIndex.row(in: snapshot) {
            return RecordWindow.apply([row], offset: request.offset, limit: request.limit)
        }
        guard let aggregate = StreamingAggregate(request, layout: layout) else {
            return try aggregateByFetching(request, schema: schema)
        }
        var streamed = true
        try forEachMatch(fetch.predicate, plan, entity: fetch.entity) { candidate, entity in
            streamed = try aggregate.add(candidate, entity: entity)
            return streamed
        }
        guard streamed else { return try aggregateByFetching(request, schema: schema) }
        return RecordWindow.apply(try aggregate.rows(), offset: request.offset, limit: request.limit)
    }
}

/// A grouped ``AggregateRequest`` computed in one pass over the matching records, with exactly
/// ``AggregateEvaluator``'s results for the cases it accepts.
///
/// Why the results are the same: matches arrive in record-key order (an unordered fetch plan),
/// so a group's first record has its lowest key — the one whose `groupBy` values the evaluator
/// reports — and every aggregate is an ``AggregateAccumulator`` fed its group's values in
/// record-key order, as the evaluator feeds its own. Groups are equal `groupBy` tuples in
/// ``Value/storageOrder(_:_:)``, found by hashing (``GroupTable``) and sorted once at the end in
/// the output ``RecordOrder`` (the sort descriptors, then the other `groupBy` keys ascending).
///
/// Streamed: `count`, `minimum` and `maximum` of any attribute, `sum` and `average` of any
/// numeric one. A record without one of the attributes (a sub-entity that lacks it), a NaN date
/// as a group value, or more than ``maximumGroups`` groups makes ``add(_:entity:)`` return
/// `false`, and the caller falls back to the evaluator.
///
/// A class used by one scan on one thread: what ``add(_:entity:)`` reads and changes for every
/// record (the accumulators, the aggregated columns, the ordinals) lies in buffers it owns, so
/// that adding a record checks no array's uniqueness, retains nothing and calls no closure.
final class StreamingAggregate {
    /// Beyond this many groups the accumulators would hold about as much as the records, so
    /// the evaluator's fetch-and-sort is as good.
    static let maximumGroups = 65_536

    /// What one output column holds.
    private enum Column {
        /// The group's value of the order key at this index.
        case groupKey(Int)
        /// An aggregate of the attribute at this index of ``keys``.
        case aggregate(keyIndex: Int)
    }

    /// An output column that aggregates, as each record feeds it.
    private struct AggregatedColumn {
        /// Its index in ``columns`` (and among a group's accumulators).
        let column: Int
        /// The index of its attribute in ``keys``.
        let keyIndex: Int
        /// Whether its values are read as numbers straight from the bytes (a count, sum or
        /// average of an integer or double attribute: ``AggregateAccumulator/add(integer:)``
        /// and ``AggregateAccumulator/add(double:)`` take them without a ``Value``).
        let readsNumbers: Bool
        /// Whether its attribute is the one `groupBy` key, read as a number (`count(age)`
        /// grouped by `age`): a record whose group was found by its integer value hands that
        /// value over instead of having it read again.
        let takesGroupKeyNumber: Bool
    }

    /// The layout, for ordinals and entity names.
    private let layout: KeyValueLayout
    /// The order of the rows: by the sort descriptors, then the other `groupBy` keys ascending
    /// (the evaluator's order keys).
    private let order: RecordOrder
    /// The attributes read from each record: the order keys, then the aggregated ones.
    private let keys: [String]
    /// One per term of the request.
    private let columns: [Column]
    /// The accumulators of a new group, one per column.
    private let emptyAccumulators: [AggregateAccumulator]
    /// Whether the one `groupBy` key is an integer attribute, whose small values find their
    /// group in ``smallIntegerGroups`` (a record of the common shape costs no ``Value``).
    private let groupsBySmallIntegers: Bool
    /// Group keys below this (and not negative) are looked up in ``smallIntegerGroups``.
    private static let smallIntegerLimit: Int64 = 4_096

    // One scan uses an instance, on one thread, and no method re-enters another, so accesses
    // never overlap: the runtime exclusivity checks are switched off for the mutable state.
    /// The aggregating columns (``aggregatedCount`` of them), in column order.
    private let aggregated: UnsafeMutablePointer<AggregatedColumn>
    /// The number of ``aggregated`` columns.
    private let aggregatedCount: Int
    /// The ordinal of each of ``keys`` in records of each entity, resolved on the entity's first
    /// record: those of the entity at index `e` start at `e * keys.count`; ``resolved`` says
    /// which entities have theirs.
    private let ordinals: UnsafeMutablePointer<Int>
    /// Whether ``ordinals`` holds the entity's ordinals yet, per entity index.
    private let resolved: UnsafeMutablePointer<Bool>
    /// The number of entities of the layout (of ``resolved``).
    private let entityCount: Int
    /// The accumulators, one per column of each group: those of group `g` start at
    /// `g * columns.count`. ``accumulatorCount`` of them are initialized.
    @exclusivity(unchecked) private var accumulators: UnsafeMutablePointer<AggregateAccumulator>
    /// The number of initialized ``accumulators``.
    @exclusivity(unchecked) private var accumulatorCount = 0
    /// How many accumulators ``accumulators`` has room for.
    @exclusivity(unchecked) private var accumulatorCapacity: Int
    /// The group of each small integer group key seen so far, by value (``smallIntegerLimit``
    /// of them when ``groupsBySmallIntegers``, else none); `-1` for none yet.
    private let smallIntegerGroups: UnsafeMutablePointer<Int>
    /// The number of attributes read from each record (of ``keys``).
    private let keyCount: Int
    /// The number of output columns (of ``columns``): the accumulators of one group.
    private let columnCount: Int
    /// The groups, in the order of their first records (sorted by ``rows()``).
    @exclusivity(unchecked) private var groups = GroupTable()
    /// The group values of the record being added; reused, copied only for a new group.
    @exclusivity(unchecked) private var scratch: [Value] = []

    /// The plan for `request`, which the evaluator validated and found grouped; `nil` when a
    /// term is not streamed (see the type's description).
    init?(_ request: AggregateRequest, layout: KeyValueLayout) {
        let schema = layout.schema
        guard let description = schema.entity(named: request.entity) else { return nil }
        let orderKeys = request.groupOrderKeys
        var keys = orderKeys.map(\.key)
        var columns: [Column] = []
        var numeric: [Bool] = []
        var accumulators: [AggregateAccumulator] = []
        for term in request.terms {
            guard let ordinal = schema.attributeOrdinal(term.key, in: request.entity) else { return nil }
            let type = description.attributes[ordinal].type
            switch term.function {
            case .value:
                guard let index = orderKeys.firstIndex(where: { $0.key == term.key }) else { return nil }
                columns.append(.groupKey(index))
                accumulators.append(AggregateAccumulator(.count, of: type))
                continue
            case .sum, .average:
                guard type == .double || type == .integer || type == .bool || type == .decimal else { return nil }
            case .count, .minimum, .maximum:
                break
            }
            let countsOrAdds = term.function == .count || term.function == .sum || term.function == .average
            numeric.append(countsOrAdds && (type == .integer || type == .double))
            columns.append(.aggregate(keyIndex: keys.count))
            accumulators.append(AggregateAccumulator(term.function, of: type))
            keys.append(term.key)
        }
        let groupsBySmallIntegers = orderKeys.count == 1
            && schema.attributeOrdinal(orderKeys[0].key, in: request.entity).map { description.attributes[$0].type == .integer } == true
        var aggregated: [AggregatedColumn] = []
        for (c, column) in columns.enumerated() {
            guard case .aggregate(let keyIndex) = column else { continue }
            let readsNumbers = numeric[aggregated.count]
            let isGroupKey = orderKeys.count == 1 && keys[keyIndex] == orderKeys[0].key
            aggregated.append(AggregatedColumn(column: c, keyIndex: keyIndex, readsNumbers: readsNumbers,
                                               takesGroupKeyNumber: readsNumbers && isGroupKey && groupsBySmallIntegers))
        }
        self.layout = layout
        self.order = RecordOrder(orderKeys)
        self.keys = keys
        self.columns = columns
        self.emptyAccumulators = accumulators
        self.groupsBySmallIntegers = groupsBySmallIntegers
        let slots = groupsBySmallIntegers ? Int(Self.smallIntegerLimit) : 0
        smallIntegerGroups = .allocate(capacity: max(1, slots))
        smallIntegerGroups.initialize(repeating: -1, count: slots)
        keyCount = keys.count
        columnCount = columns.count
        self.aggregatedCount = aggregated.count
        self.aggregated = .allocate(capacity: max(1, aggregated.count))
        self.aggregated.initialize(from: aggregated, count: aggregated.count)
        entityCount = layout.entityNames.names.count
        ordinals = .allocate(capacity: max(1, entityCount * keys.count))
        ordinals.initialize(repeating: 0, count: entityCount * keys.count)
        resolved = .allocate(capacity: max(1, entityCount))
        resolved.initialize(repeating: false, count: entityCount)
        accumulatorCapacity = max(16, columns.count)
        self.accumulators = .allocate(capacity: accumulatorCapacity)
        if orderKeys.isEmpty {
            // Without groupBy keys every record is in one group, which exists even over no records.
            _ = groups.findOrAdd([])
            appendEmptyAccumulators()
        }
    }

    deinit {
        accumulators.deinitialize(count: accumulatorCount)
        accumulators.deallocate()
        aggregated.deinitialize(count: aggregatedCount)
        aggregated.deallocate()
        ordinals.deallocate()
        resolved.deallocate()
        smallIntegerGroups.deallocate()
    }

    /// Adds the candidate, a record of the entity at `entity`; `false` when the request leaves
    /// the streamed cases (the caller then falls back to the evaluator).
    func add(_ candidate: ScanCandidate, entity: Int) throws -> Bool {
        precondition(entity >= 0 && entity < entityCount, "an entity index outside the layout")
        let firstOrdinal = entity &* keyCount
        if !resolved[entity] {
            guard resolve(entity, firstOrdinal: firstOrdinal) else { return false }
        }
        let groupIndex: Int
        // The group key when it was read as an integer: what a column over the same attribute adds.
        var groupKeyNumber: Int64 = 0
        var hasGroupKeyNumber = false
        if groupsBySmallIntegers, case .integer(let value) = try candidate.numberReadOnce(ordinals[firstOrdinal]),
           UInt64(bitPattern: value) < UInt64(Self.smallIntegerLimit) {
            groupKeyNumber = value
            hasGroupKeyNumber = true
            let known = smallIntegerGroups[Int(value)]
            if known >= 0 {
                groupIndex = known
            } else {
                guard let found = try group(of: candidate, firstOrdinal: firstOrdinal) else { return false }
                groupIndex = found
                smallIntegerGroups[Int(value)] = found
            }
        } else {
            guard let found = try group(of: candidate, firstOrdinal: firstOrdinal) else { return false }
            groupIndex = found
        }
        let row = accumulators + groupIndex &* columnCount
        for a in 0..<aggregatedCount {
            let step = aggregated[a]
            if step.takesGroupKeyNumber && hasGroupKeyNumber {
                row[step.column].add(integer: groupKeyNumber)
                continue
            }
            let ordinal = ordinals[firstOrdinal &+ step.keyIndex]
            if step.readsNumbers {
                switch try candidate.numberReadOnce(ordinal) {
                case .integer(let value):
                    row[step.column].add(integer: value)
                    continue
                case .double(let value):
                    row[step.column].add(double: value)
                    continue
                case .other:
                    break
                }
            }
            try Self.add(candidate, ordinal, to: row + step.column)
        }
        return true
    }

    /// Adds the candidate's attribute at `ordinal` as a ``Value``: out of line, so that the
    /// common path of ``add(_:entity:)`` (numbers read from the bytes) stays small.
    @inline(never)
    private static func add(_ candidate: ScanCandidate, _ ordinal: Int, to accumulator: UnsafeMutablePointer<AggregateAccumulator>) throws {
        accumulator.pointee.add(try candidate.attribute(ordinal))
    }

    /// Finds the ordinals of ``keys`` in records of the entity at `entity`; `false` when the
    /// entity lacks one of them.
    @inline(never)
    private func resolve(_ entity: Int, firstOrdinal: Int) -> Bool {
        let name = layout.entityNames.names[entity]
        for (i, key) in keys.enumerated() {
            guard let ordinal = layout.schema.attributeOrdinal(key, in: name) else { return false }
            ordinals[firstOrdinal + i] = ordinal
        }
        resolved[entity] = true
        return true
    }

    /// Adds a new group's accumulators (``emptyAccumulators``) after the others.
    private func appendEmptyAccumulators() {
        let needed = accumulatorCount + emptyAccumulators.count
        if needed > accumulatorCapacity {
            let capacity = max(needed, accumulatorCapacity * 2)
            let grown = UnsafeMutablePointer<AggregateAccumulator>.allocate(capacity: capacity)
            grown.moveInitialize(from: accumulators, count: accumulatorCount)
            accumulators.deallocate()
            accumulators = grown
            accumulatorCapacity = capacity
        }
        (accumulators + accumulatorCount).initialize(from: emptyAccumulators, count: emptyAccumulators.count)
        accumulatorCount = needed
    }

    /// The index of the candidate's group, made when new; `nil` when its group values leave the
    /// streamed cases (a NaN date, more than ``maximumGroups`` groups). The entity's ordinals
    /// start at `firstOrdinal` in ``ordinals``.
    @inline(never)
    private func group(of candidate: ScanCandidate, firstOrdinal: Int) throws -> Int? {
        let orderKeyCount = order.keyCount
        if orderKeyCount == 0 { return 0 }
        if scratch.count != orderKeyCount { scratch = Array(filledWith: .null, count: orderKeyCount) }
        for i in 0..<orderKeyCount {
            let value = try candidate.attribute(ordinals[firstOrdinal + i])
            // A NaN date is not equal to itself in storageOrder, so it cannot key a group.
            if case .date(let date) = value, date.timeIntervalSinceReferenceDate.isNaN { return nil }
            scratch[i] = value
        }
        if let known = groups.index(of: scratch) { return known }
        guard groups.count < Self.maximumGroups else { return nil }
        appendEmptyAccumulators()
        return groups.findOrAdd(scratch).index
    }

    /// The rows, one per group in the request's order, before offset and limit. Throws what the
    /// evaluator throws for the same groups (an integer sum that overflows).
    func rows() throws -> [[Value]] {
        let keys = self.keys
        let order = self.order
        let groupKeys = groups.keys
        // Distinct groups never compare equal, so this order is total.
        let sorted = groupKeys.indices.sorted { order.compareSortValues(groupKeys[$0], groupKeys[$1]) < 0 }
        return try sorted.map { g in
            try columns.enumerated().map { c, column in
                switch column {
                case .groupKey(let index):
                    return groupKeys[g][index]
                case .aggregate(let keyIndex):
                    return try accumulators[g * columns.count + c].result(for: keys[keyIndex])
                }
            }
        }
    }
}
