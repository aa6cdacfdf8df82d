import CoreStoreStorage

/// Reads one ``InMemoryState``: filters with the reference evaluator, sorts with the reference
/// sorter and aggregates with the reference aggregate evaluator, so its answers define the
/// expected results for every other backend.
struct InMemoryReader: StorageReader {
    let state: InMemoryState

    func records(_ ids: [RecordID]) throws -> [Record?] {
        ids.map { state.record($0) }
    }

    func fetch(_ request: FetchRequest) throws -> FetchResult {
        var records = try matching(request)
        if request.sortDescriptors.isEmpty {
            records.sort { $0.id.key < $1.id.key }
        } else {
            try RecordSorter(schema: state.schema, sortDescriptors: request.sortDescriptors).sort(&records)
        }
        return FetchResult(records: RecordWindow.apply(records, offset: request.offset, limit: request.limit))
    }

    func count(_ request: FetchRequest) throws -> Int {
        let n = try matching(request).count
        let afterOffset = max(0, n - max(request.offset, 0))
        return request.limit.map { min($0, afterOffset) } ?? afterOffset
    }

    /// Aggregates natively with the reference evaluator over the matching records; the
    /// snapshot's own schema is used.
    func aggregate(_ request: AggregateRequest, schema: StoreSchema) throws -> [[Value]] {
        let evaluator = AggregateEvaluator(schema: state.schema)
        try evaluator.validate(request)
        let records = try matching(FetchRequest(entity: request.entity, includesSubentities: request.includesSubentities, predicate: request.predicate))
        return try evaluator.rows(request, records: records)
    }

    private func matching(_ request: FetchRequest) throws -> [Record] {
        guard state.schema.entity(named: request.entity) != nil else { throw StorageError.unknownEntity(request.entity) }
        let entities = request.includesSubentities ? state.schema.entityAndDescendants(request.entity) : [request.entity]
        let snapshot = state
        let evaluator = PredicateEvaluator(schema: state.schema) { id in snapshot.record(id) }
        var result: [Record] = []
        for entity in entities {
            guard let table = state.tables[entity] else { continue }
            if let predicate = request.predicate {
                for record in table.values where try evaluator.evaluate(predicate, on: record) { result.append(record) }
            } else {
                result.append(contentsOf: table.values)
            }
        }
        return result
    }
}
