import CoreStoreStorage

/// Requests whose predicate the dialect cannot express in full (``SQLNeedsEvaluator``): the
/// conjuncts it can express filter in SQL, the rest is evaluated here with the reference
/// evaluator, which also sorts and applies the window.
extension SQLReader {
    func fetchByEvaluating(_ request: FetchRequest) throws -> [Record] {
        let (pushed, residual) = try split(request.predicate, entity: request.entity)
        let candidates = FetchRequest(entity: request.entity, includesSubentities: request.includesSubentities, predicate: pushed)
        var records = try fetch(candidates).records
        if let residual {
            let lookup = RecordLookup { id in try self.records([id]).first ?? nil }
            let evaluator = PredicateEvaluator(schema: mapping.schema) { id in try lookup.record(id) }
            records = try records.filter { try evaluator.evaluate(residual, on: $0) }
        }
        try RecordSorter(schema: mapping.schema, sortDescriptors: request.sortDescriptors).sort(&records)
        return RecordWindow.apply(records, offset: request.offset, limit: request.limit)
    }

    /// The conjuncts of `predicate` the dialect expresses, and the rest.
    private func split(_ predicate: RecordPredicate?, entity: String) throws -> (pushed: RecordPredicate?, residual: RecordPredicate?) {
        guard let predicate else { return (nil, nil) }
        let conjuncts: [RecordPredicate]
        if case .and(let parts) = predicate { conjuncts = parts } else { conjuncts = [predicate] }
        var pushed: [RecordPredicate] = [], residual: [RecordPredicate] = []
        for conjunct in conjuncts {
            var probe = SQLQueryBuilder(mapping: mapping)
            do {
                _ = try probe.condition(conjunct, entity: entity, alias: "t0")
                pushed.append(conjunct)
            } catch is SQLNeedsEvaluator {
                residual.append(conjunct)
            }
        }
        func joined(_ parts: [RecordPredicate]) -> RecordPredicate? {
            parts.isEmpty ? nil : parts.count == 1 ? parts[0] : .and(parts)
        }
        return (joined(pushed), joined(residual))
    }
}

/// Reads records by identifier for the evaluator's key paths through relationships, on the
/// thread that runs the read (the evaluator's resolver must be `Sendable`; it is called only
/// there, while the read runs).
private final class RecordLookup: @unchecked Sendable {
    private let read: (RecordID) throws -> Record?
    private var cache: [RecordID: Record?] = [:]

    init(_ read: @escaping (RecordID) throws -> Record?) {
        self.read = read
    }

    func record(_ id: RecordID) throws -> Record? {
        if let cached = cache[id] { return cached }
        let record = try read(id)
        cache[id] = record
        return record
    }
}
