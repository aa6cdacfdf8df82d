import CoreStoreStorage

/// What the top-level conjuncts of a predicate require of single attributes: each bound
/// attribute must equal one of a finite set of values, given as their ``ValueKey/equalityKey(_:)``s.
///
/// A conjunct binds its attribute when it is `attribute == value` or `attribute IN list`,
/// compared without string options (so case- or diacritic-insensitive comparisons never bind),
/// with the `ANY` or `ALL` quantifier (the same thing for one value) and no key path function.
/// A NaN operand binds to no key (it equals nothing); a decimal operand binds nothing (decimals
/// equal doubles through rounding, which keys cannot express). Two conjuncts on one attribute
/// bind it to the keys both allow.
///
/// Soundness: a record that satisfies the predicate has, for each bound attribute, a value equal
/// to some operand, hence that operand's key (equal values have equal keys), hence a key in the
/// binding. The converse need not hold, which is why the reader still evaluates the whole
/// predicate on every candidate.
struct EqualityBindings: Sendable {
    /// For each bound attribute, the keys its value may have (empty: no record matches).
    private(set) var keys: [String: Set<ValueKey>] = [:]
    /// Whether the predicate is exactly its bindings: every top-level conjunct binds an attribute
    /// (or is `TRUEPREDICATE`). Then a record whose bound values have equality keys satisfies the
    /// predicate exactly when those keys are in the bindings, because values with keys are equal
    /// exactly when their keys are (see ``ValueKey``).
    private(set) var isExact = true

    /// The bindings of `predicate`'s top-level conjuncts; `nil` when none binds an attribute.
    init?(_ predicate: RecordPredicate) {
        bind(predicate)
        if keys.isEmpty { return nil }
    }

    private mutating func bind(_ predicate: RecordPredicate) {
        switch predicate {
        case .and(let conjuncts):
            for conjunct in conjuncts { bind(conjunct) }
        case .comparison(let comparison):
            guard comparison.keyPath.count == 1, comparison.function == nil, comparison.options.isEmpty,
                  comparison.quantifier != .none, let allowed = Self.keys(comparison.op, comparison.operand) else {
                isExact = false
                return
            }
            let attribute = comparison.keyPath[0]
            keys[attribute] = keys[attribute].map { $0.intersection(allowed) } ?? allowed
        case .constant(true):
            break
        case .constant(false), .not, .or:
            isExact = false
        }
    }

    /// The keys an attribute compared by `op` with `operand` may have; `nil` when the comparison
    /// does not bind it.
    private static func keys(_ op: ComparisonOperator, _ operand: Operand) -> Set<ValueKey>? {
        let values: [Value]
        switch (op, operand) {
        case (.equal, .value(let value)): values = [value]
        case (.in, .list(let list)): values = list
        default: return nil
        }
        var keys = Set<ValueKey>()
        for value in values {
            if case .decimal = value { return nil }
            // No key: NaN, equal to nothing.
            if let key = ValueKey.equalityKey(value) { keys.insert(key) }
        }
        return keys
    }

    /// The key tuples a record must have in an index on `attributes` to satisfy the bindings;
    /// `nil` when an attribute is unbound or there would be more than `limit` tuples.
    func tuples(_ attributes: [String], limit: Int) -> [KeyTuple]? {
        var sets: [Set<ValueKey>] = []
        var product = 1
        for attribute in attributes {
            guard let set = keys[attribute] else { return nil }
            product = product.multipliedReportingOverflow(by: set.count).partialValue
            guard product <= limit else { return nil }
            sets.append(set)
        }
        guard let first = sets.first else { return nil }
        var tuples = first.map { KeyTuple(first: $0, rest: []) }
        for set in sets.dropFirst() {
            tuples = tuples.flatMap { tuple in set.map { KeyTuple(first: tuple.first, rest: tuple.rest + [$0]) } }
        }
        return tuples
    }
}

extension EqualityBindings {
    /// Whether ``PredicateEvaluator`` evaluates `predicate` on any record of the concrete `entity`
    /// without throwing, judged from the schema alone.
    ///
    /// An indexed read evaluates the predicate on fewer records than a scan, so it could miss an
    /// error a scan would throw; it is used only when there is none to miss. Accepted: key paths
    /// of one key (an attribute or relationship of the entity itself), with the operands the
    /// evaluator accepts for them. Refused (a scan answers instead, exactly as before): longer key
    /// paths (they resolve other records), `MATCHES` (its pattern may not compile), and everything
    /// the evaluator rejects.
    static func evaluatesWithoutThrowing(_ predicate: RecordPredicate, entity: String, schema: StoreSchema) -> Bool {
        switch predicate {
        case .constant:
            return true
        case .not(let inner):
            return evaluatesWithoutThrowing(inner, entity: entity, schema: schema)
        case .and(let operands), .or(let operands):
            return operands.allSatisfy { evaluatesWithoutThrowing($0, entity: entity, schema: schema) }
        case .comparison(let c):
            guard c.keyPath.count == 1, c.op != .matches else { return false }
            let key = c.keyPath[0]
            if schema.attributeOrdinal(key, in: entity) != nil {
                return c.function == nil && operandFits(c.op, c.operand)
            }
            guard schema.relationshipOrdinal(key, in: entity) != nil else { return false }
            if c.function == .count { return operandFits(c.op, c.operand) }
            switch (c.op, c.operand) {
            case (.equal, .value(.null)), (.notEqual, .value(.null)), (.equal, .records), (.notEqual, .records), (.in, .records):
                return true
            case (.in, .list(let values)):
                return values.isEmpty
            default:
                return false
            }
        }
    }

    /// Whether the evaluator accepts `operand` for `op` on a value (not a relationship).
    private static func operandFits(_ op: ComparisonOperator, _ operand: Operand) -> Bool {
        switch (op, operand) {
        case (.in, .list): return true
        case (.in, _): return false
        case (.between, .list(let values)): return values.count == 2
        case (.between, _): return false
        case (.matches, _): return false
        case (_, .value): return true
        default: return false
        }
    }
}
