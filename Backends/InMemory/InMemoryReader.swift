import CoreStoreStorage
import HashTreeCollections

/// Reads one ``InMemoryState``: filters with the reference evaluator's semantics (through a
/// predicate prepared per entity, `FieldPredicate`, which answers what the evaluator answers),
/// sorts with the reference sorter and aggregates with the reference aggregate evaluator, so its
/// answers define the expected results for every other backend.
///
/// Scans read the records in key order from ``KeyOrderedChunks`` (the order unsorted results
/// and ties are returned in). Three shortcuts leave every answer as it would be without them:
/// - an equality or `IN` conjunct on indexed attributes narrows the records the predicate is
///   evaluated on to the index's candidates (see ``InMemoryIndexes`` and ``EqualityBindings``);
/// - a sorted fetch with a limit keeps only the first offset + limit records of the order
///   (``RecordSorter/sortedPrefix(_:count:)``) instead of sorting every match;
/// - grouped aggregates whose values allow it are computed in one pass over the selected
///   records (see ``KeyOrderedAggregate``) instead of by the evaluator.
struct InMemoryReader: StorageReader {
    let state: InMemoryState

    func records(_ ids: [RecordID]) throws -> [Record?] {
        ids.map { state.record($0) }
    }

    func fetch(_ request: FetchRequest) throws -> FetchResult {
        var records = try matching(request)
        if request.sortDescriptors.isEmpty {
            records = RecordKeyOrder.sorted(records)
        } else if let limit = request.limit,
                  case let (end, overflow) = max(request.offset, 0).addingReportingOverflow(max(limit, 0)), !overflow {
            // A limited fetch needs only the first offset + limit records of the order.
            records = try RecordSorter(schema: state.schema, sortDescriptors: request.sortDescriptors).sortedPrefix(records, count: end)
        } else {
            try RecordSorter(schema: state.schema, sortDescriptors: request.sortDescriptors).sort(&records)
        }
        return FetchResult(records: RecordWindow.apply(records, offset: request.offset, limit: request.limit))
    }

    func count(_ request: FetchRequest) throws -> Int {
        var n = 0
        if request.predicate == nil {
            for entity in try selectedEntities(request) { n += state.tables[entity]?.count ?? 0 }
        } else {
            var counter = RecordCounter()
            try forEachMatch(request, into: &counter)
            n = counter.count
        }
        let afterOffset = max(0, n - max(request.offset, 0))
        return request.limit.map { min($0, afterOffset) } ?? afterOffset
    }

    /// Aggregates natively over the matching records: grouped requests in one pass when
    /// ``KeyOrderedAggregate`` accepts them, everything else with the reference evaluator; the
    /// snapshot's own schema is used.
    func aggregate(_ request: AggregateRequest, schema: StoreSchema) throws -> [[Value]] {
        let evaluator = AggregateEvaluator(schema: state.schema)
        try evaluator.validate(request)
        let selection = FetchRequest(entity: request.entity, includesSubentities: request.includesSubentities, predicate: request.predicate)
        if try evaluator.isGrouped(request), var aggregate = KeyOrderedAggregate(request, schema: state.schema) {
            if request.predicate == nil { aggregate.reserveCapacity(try tableSizes(selection)) }
            if try forEachMatch(selection, into: &aggregate), let rows = aggregate.rows() {
                return RecordWindow.apply(rows, offset: request.offset, limit: request.limit)
            }
        }
        // Key order for the evaluator too: where storage order is not a total order (NaN dates),
        // its grouping depends on the order of its input, which key order makes reproducible.
        return try evaluator.rows(request, records: RecordKeyOrder.sorted(try matching(selection)))
    }

    /// The records `request` selects (entity, sub-entities, predicate), in no particular order.
    private func matching(_ request: FetchRequest) throws -> [Record] {
        var collector = RecordCollector()
        if request.predicate == nil { collector.records.reserveCapacity(try tableSizes(request)) }
        try forEachMatch(request, into: &collector)
        return collector.records
    }

    /// The number of records of the entities `request` reads, before filtering.
    private func tableSizes(_ request: FetchRequest) throws -> Int {
        try selectedEntities(request).reduce(0) { $0 + (state.tables[$1]?.count ?? 0) }
    }

    /// Hands each record `request` selects (entity, sub-entities, predicate) to `sink`, entity
    /// by entity; returns `false` when the sink stopped the scan.
    ///
    /// Per concrete entity, the predicate is evaluated either on every record, in key order (see
    /// ``KeyOrderedChunks``), or, when an index of the entity has all its attributes bound by the
    /// predicate's equality conjuncts and the predicate cannot throw on the entity's records, on
    /// the index's candidates only, in no particular order: the same records pass either way.
    /// It is prepared for each entity first (`FieldPredicate`: attribute ordinals resolved once,
    /// numbers compared without the evaluator), which keeps exactly the records the evaluator
    /// keeps and throws what it throws.
    @discardableResult
    private func forEachMatch<Sink: RecordSink>(_ request: FetchRequest, into sink: inout Sink) throws -> Bool {
        let entities = try selectedEntities(request)
        guard let predicate = request.predicate else {
            for entity in entities {
                for chunk in state.indexes.keyOrder.orderedChunks(of: entity) {
                    let proceed = chunk.withUnsafeBufferPointer { records in
                        Self.prefetchAttributes(of: records)
                        for i in records.indices where !sink.take(records[i]) { return false }
                        return true
                    }
                    if !proceed { return false }
                }
            }
            return true
        }
        let snapshot = state
        let evaluator = PredicateEvaluator(schema: state.schema) { id in snapshot.record(id) }
        let bindings = EqualityBindings(predicate)
        let keyOrder = state.indexes.keyOrder
        for entity in entities {
            let prepared = FieldPredicate(predicate, entity: entity, schema: state.schema)
            func satisfies(_ record: UnsafePointer<Record>) throws -> Bool {
                try prepared.evaluate(DecodedRecordFields(pointer: record), evaluator)
            }
            func satisfies(_ record: Record) throws -> Bool {
                try withUnsafePointer(to: record, satisfies)
            }
            if let bindings,
               let candidates = state.indexes.candidates(bindings, entity: entity),
               EqualityBindings.evaluatesWithoutThrowing(predicate, entity: entity, schema: state.schema) {
                for keys in candidates.keyed {
                    for key in keys {
                        guard let record = keyOrder.record(key, of: entity) else { continue }
                        if try candidates.keyedSatisfyPredicate || satisfies(record), !sink.take(record) { return false }
                    }
                }
                for key in candidates.unkeyed {
                    guard let record = keyOrder.record(key, of: entity) else { continue }
                    if try satisfies(record), !sink.take(record) { return false }
                }
            } else {
                for chunk in keyOrder.orderedChunks(of: entity) {
                    let proceed = try chunk.withUnsafeBufferPointer { records in
                        let base = records.baseAddress.unsafelyUnwrapped
                        for i in records.indices where try satisfies(base + i) {
                            if !sink.take(records[i]) { return false }
                        }
                        return true
                    }
                    if !proceed { return false }
                }
            }
        }
        return true
    }

    /// Reads the count of each record's attributes (in the header of its attribute storage), so
    /// that the cache misses of a chunk's records overlap. Otherwise each record's first access
    /// is the reference-count increment of copying it to the sink, an atomic operation that no
    /// other load overtakes: in a scan of 100,000 records those misses, one at a time, were most
    /// of the time (W5: about 31 ms with them, 22 ms without).
    private static func prefetchAttributes(of records: UnsafeBufferPointer<Record>) {
        var total = 0
        for i in records.indices { total &+= records[i].attributes.count }
        // Uses the loads, so that they are not optimized away (the sum of at most 64 array
        // counts is never Int.min).
        precondition(total != Int.min, "a chunk of records holds at most 64 arrays")
    }

    /// The concrete and abstract entities whose tables `request` reads; throws for an unknown entity.
    private func selectedEntities(_ request: FetchRequest) throws -> [String] {
        guard state.schema.entity(named: request.entity) != nil else { throw StorageError.unknownEntity(request.entity) }
        return request.includesSubentities ? state.schema.entityAndDescendants(request.entity) : [request.entity]
    }
}
