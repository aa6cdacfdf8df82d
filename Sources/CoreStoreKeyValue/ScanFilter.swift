import CoreStoreStorage

/// The predicate of one scan, tested on each record it reads: prepared as a ``FieldPredicate``
/// per concrete entity on that entity's first record (attribute ordinals differ between
/// entities), and passing every record when the scan has no predicate.
///
/// A class used by one scan on one thread, so that testing a record neither copies the
/// request's predicate nor checks exclusive access to the prepared ones.
final class ScanFilter {
    /// The request's predicate; `nil` passes every record.
    private let predicate: RecordPredicate?
    /// Whether there is a predicate to test.
    let tests: Bool
    /// The evaluator for what a prepared predicate cannot decide from single attributes.
    private let evaluator: PredicateEvaluator
    /// The schema, for preparing.
    private let schema: StoreSchema
    /// The entity names, by index.
    private let names: [String]
    /// The prepared predicate per entity index, `nil` until the entity's first record.
    @exclusivity(unchecked) private var prepared: [FieldPredicate?]
    /// ``prepared``, unretained: what testing a record reads, so that it retains nothing (the
    /// filter holds the predicates through ``prepared`` for as long as it tests records).
    @exclusivity(unchecked) private var preparedReferences: [Unmanaged<FieldPredicate>?]

    /// A filter by `predicate` over records of `schema`, whose entities `names` lists.
    init(_ predicate: RecordPredicate?, names: [String], schema: StoreSchema, evaluator: PredicateEvaluator) {
        self.predicate = predicate
        self.tests = predicate != nil
        self.evaluator = evaluator
        self.schema = schema
        self.names = names
        self.prepared = Array(filledWith: nil, count: names.count)
        self.preparedReferences = Array(filledWith: nil, count: names.count)
    }

    /// Whether the candidate, a record of the entity at `entity` in ``names``, satisfies the
    /// predicate.
    @inline(__always)
    func accepts(_ candidate: ScanCandidate, entity: Int) throws -> Bool {
        guard tests else { return true }
        if let known = preparedReferences[entity] {
            // The evaluator (a large value) is passed only past the numeric range test.
            if let decided = try known._withUnsafeGuaranteedRef({ try $0.rangeResult(candidate) }) { return decided }
            return try known._withUnsafeGuaranteedRef { try $0.evaluateLeavesOrTree(candidate, evaluator) }
        }
        return try prepare(entity).evaluate(candidate, evaluator)
    }

    /// The predicate's range of doubles for records of the entity at `entity` (see
    /// ``FieldPredicate/doubleRange``); `nil` when the predicate is not one, or not prepared
    /// for that entity yet.
    func doubleRange(entity: Int) -> (ordinal: Int, low: Double, high: Double)? {
        guard tests, let prepared = preparedReferences[entity] else { return nil }
        return prepared._withUnsafeGuaranteedRef { $0.doubleRange }
    }

    /// The predicate prepared for the entity at `entity`, kept for its next records.
    @inline(never)
    private func prepare(_ entity: Int) -> FieldPredicate {
        let fieldPredicate = FieldPredicate(predicate ?? .constant(true), entity: names[entity], schema: schema)
        prepared[entity] = fieldPredicate
        preparedReferences[entity] = Unmanaged.passUnretained(fieldPredicate)
        return fieldPredicate
    }
}
