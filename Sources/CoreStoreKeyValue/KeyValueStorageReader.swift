import CoreStoreStorage

/// The ``StorageReader`` of a ``KeyValueStorage``: reads one engine snapshot, narrows fetches
/// with ``FetchPlanner``, re-checks the whole predicate with ``PredicateEvaluator``, sorts with
/// ``RecordSorter`` and windows. Nothing is left pending.
struct KeyValueStorageReader: StorageReader {
    let snapshot: any KeyValueReader
    let layout: KeyValueLayout

    var schema: StoreSchema { layout.schema }

    /// The record with `id`, also when `id.entity` is an ancestor of the record's entity.
    func record(_ id: RecordID) throws -> Record? {
        guard schema.entity(named: id.entity) != nil,
              let bytes = try snapshot.get(layout.recordKey(entity: id.entity, key: id.key)) else { return nil }
        let record = try RecordCodec.decode(bytes)
        return schema.entity(record.id.entity, isKindOf: id.entity) ? record : nil
    }

    func records(_ ids: [RecordID]) throws -> [Record?] {
        try ids.map(record)
    }

    func fetch(_ request: FetchRequest) throws -> FetchResult {
        let plan = try FetchPlanner(layout: layout).plan(request)
        let inOrder = request.sortDescriptors.isEmpty || plan.isOrdered
        var records = try matching(request, plan, stopAfter: inOrder ? request.limit.map { max(request.offset, 0) + max($0, 0) } : nil)
        if !inOrder {
            try RecordSorter(schema: schema, sortDescriptors: request.sortDescriptors).sort(&records)
        }
        return FetchResult(records: RecordWindow.apply(records, offset: request.offset, limit: request.limit))
    }

    func count(_ request: FetchRequest) throws -> Int {
        var unsorted = request
        unsorted.sortDescriptors = []
        let plan = try FetchPlanner(layout: layout).plan(unsorted)
        let n = try matching(unsorted, plan, stopAfter: request.limit.map { max(request.offset, 0) + max($0, 0) }).count
        let afterOffset = max(0, n - max(request.offset, 0))
        return request.limit.map { min($0, afterOffset) } ?? afterOffset
    }

    /// The records `request` selects, at most `stopAfter` of them: in the index's order when the
    /// plan is ordered, otherwise in record-key order.
    private func matching(_ request: FetchRequest, _ plan: FetchPlan, stopAfter: Int?) throws -> [Record] {
        var result: [Record] = []
        if plan.entities.isEmpty || stopAfter == 0 { return result }
        let box = SnapshotBox(reader: self)
        let evaluator = PredicateEvaluator(schema: schema) { id in try box.reader.record(id) }
        // Returns whether to go on.
        func consider(_ record: Record) throws -> Bool {
            if let predicate = request.predicate, try !evaluator.evaluate(predicate, on: record) { return true }
            result.append(record)
            if let stopAfter, result.count >= stopAfter { return false }
            return true
        }
        switch plan.access {
        case .entityScan:
            let prefix = layout.recordPrefix(ofHierarchyOf: request.entity)
            try snapshot.scan(from: prefix, to: TupleEncoder.elementsEnd(prefix), reverse: false) { _, value in
                let id = try RecordCodec.recordID(value)
                guard plan.entities.contains(id.entity) else { return true }
                return try consider(RecordCodec.decode(value))
            }
        case .indexRange(_, let lower, let upper):
            // The record behind one index entry, if the request selects its entity.
            func load(_ key: Int64) throws -> Record? {
                guard let bytes = try snapshot.get(layout.recordKey(entity: request.entity, key: key)) else { return nil }
                let record = try RecordCodec.decode(bytes)
                return plan.entities.contains(record.id.entity) ? record : nil
            }
            if plan.isOrdered {
                // Entries come in the sort order: read records as they come and stop early.
                try snapshot.scan(from: lower, to: upper, reverse: false) { entry, _ in
                    guard let record = try load(KeyValueLayout.recordKey(ofEntry: entry)) else { return true }
                    return try consider(record)
                }
            } else {
                var keys: [Int64] = []
                try snapshot.scan(from: lower, to: upper, reverse: false) { entry, _ in
                    keys.append(try KeyValueLayout.recordKey(ofEntry: entry))
                    return true
                }
                keys.sort()
                var previous: Int64?
                for key in keys where key != previous {
                    previous = key
                    guard let record = try load(key) else { continue }
                    if try !consider(record) { break }
                }
            }
        }
        return result
    }
}

/// Lets the evaluator's `@Sendable` resolver read the snapshot it runs inside. The resolver is
/// only called synchronously, inside the `read` that owns the snapshot.
private final class SnapshotBox: @unchecked Sendable {
    let reader: KeyValueStorageReader
    init(reader: KeyValueStorageReader) { self.reader = reader }
}
