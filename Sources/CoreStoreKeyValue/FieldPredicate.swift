import CoreStoreStorage

/// A ``RecordPredicate`` prepared for the records of one concrete entity, so that a scan tests
/// single attributes read straight from the record's bytes (see ``RecordFields``) instead of
/// decoding every record first.
///
/// A comparison of one attribute of the entity (one-key path, no function) becomes a ``leaf``
/// that ``PredicateEvaluator/evaluateLeaf(_:_:)`` tests: exactly what the evaluator does for
/// such a comparison (with `NONE` negating it; `ANY` and `ALL` over the single owner are the
/// test itself). Everything else — relationship paths, `@count`, unknown keys — stays a
/// ``record(_:)`` node that the evaluator checks on the decoded record, so results and errors
/// are the evaluator's. AND and OR keep their order and short-circuits.
indirect enum FieldPredicate {
    /// Always this result.
    case constant(Bool)
    /// The negation.
    case not(FieldPredicate)
    /// True when every part is, checked in order.
    case and([FieldPredicate])
    /// True when any part is, checked in order.
    case or([FieldPredicate])
    /// The comparison of the attribute at `ordinal`; `negated` for the `NONE` quantifier.
    case leaf(ordinal: Int, comparison: Comparison, negated: Bool)
    /// A leaf that orders the attribute against a number (`<`, `<=`, `>`, `>=`, `==`, `!=`
    /// with a non-NaN `double` or an `int`): a value of the same case is compared directly,
    /// anything else (`nil`, NaN, another case) by the evaluator as a ``leaf``.
    case numericLeaf(ordinal: Int, order: NumericOrder, comparison: Comparison, negated: Bool)
    /// A predicate the evaluator checks on the whole record.
    case record(RecordPredicate)

    /// `predicate` prepared for records of the concrete `entity`.
    init(_ predicate: RecordPredicate, entity: String, schema: StoreSchema) {
        switch predicate {
        case .constant(let b):
            self = .constant(b)
        case .not(let p):
            self = .not(FieldPredicate(p, entity: entity, schema: schema))
        case .and(let ps):
            self = .and(ps.map { FieldPredicate($0, entity: entity, schema: schema) })
        case .or(let ps):
            self = .or(ps.map { FieldPredicate($0, entity: entity, schema: schema) })
        case .comparison(let c):
            if c.keyPath.count == 1, c.function == nil, let ordinal = schema.attributeOrdinal(c.keyPath[0], in: entity) {
                if let order = NumericOrder(c) {
                    self = .numericLeaf(ordinal: ordinal, order: order, comparison: c, negated: c.quantifier == .none)
                    return
                }
                self = .leaf(ordinal: ordinal, comparison: c, negated: c.quantifier == .none)
            } else {
                self = .record(predicate)
            }
        }
    }

    /// Whether the candidate satisfies the predicate.
    func evaluate(_ candidate: ScanCandidate, _ evaluator: PredicateEvaluator) throws -> Bool {
        switch self {
        case .constant(let b):
            return b
        case .not(let p):
            return try !p.evaluate(candidate, evaluator)
        case .and(let ps):
            for p in ps where try !p.evaluate(candidate, evaluator) { return false }
            return true
        case .or(let ps):
            for p in ps where try p.evaluate(candidate, evaluator) { return true }
            return false
        case .leaf(let ordinal, let comparison, let negated):
            let result = try evaluator.evaluateLeaf(candidate.attribute(ordinal), comparison)
            return negated ? !result : result
        case .numericLeaf(let ordinal, let order, let comparison, let negated):
            let value = try candidate.attribute(ordinal)
            let result = try order.evaluate(value) ?? evaluator.evaluateLeaf(value, comparison)
            return negated ? !result : result
        case .record(let p):
            return try evaluator.evaluate(p, on: candidate.record())
        }
    }
}

/// A comparison of a number attribute with a number constant, decided without the evaluator
/// when the stored value is of the constant's case (and not NaN): exactly the evaluator's
/// result there, since it orders two such numbers by their numeric value.
struct NumericOrder {
    /// The constant, as stored.
    private enum Constant {
        case int(Int64)
        case double(Double)
    }

    private let constant: Constant
    private let op: ComparisonOperator

    /// The fast form of `comparison`, `nil` when it is not an ordering of a number constant
    /// without string options.
    init?(_ comparison: Comparison) {
        switch comparison.op {
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual: break
        default: return nil
        }
        guard comparison.options.isEmpty, case .value(let operand) = comparison.operand else { return nil }
        switch operand {
        case .int(let i): constant = .int(i)
        case .double(let d) where !d.isNaN: constant = .double(d)
        default: return nil
        }
        op = comparison.op
    }

    /// The result for `value`, `nil` when the evaluator must decide.
    @inline(__always)
    func evaluate(_ value: Value) -> Bool? {
        switch (value, constant) {
        case (.int(let x), .int(let c)): return holds(x == c ? 0 : (x < c ? -1 : 1))
        case (.double(let x), .double(let c)) where !x.isNaN: return holds(x == c ? 0 : (x < c ? -1 : 1))
        default: return nil
        }
    }

    @inline(__always)
    private func holds(_ order: Int) -> Bool {
        switch op {
        case .equal: return order == 0
        case .notEqual: return order != 0
        case .less: return order < 0
        case .lessOrEqual: return order <= 0
        case .greater: return order > 0
        case .greaterOrEqual: return order >= 0
        default: return false
        }
    }
}

/// The record a scan is looking at: its header, its attributes parsed on first use and the
/// whole record decoded at most once, when something needs it. One instance is reused for
/// every record of a scan.
final class ScanCandidate {
    // One scan uses a candidate, on one thread, and no method re-enters another, so accesses
    // never overlap: the per-access runtime exclusivity check (about a tenth of a filtered
    // scan's instructions) is switched off for the decoded record.
    /// The current record's bytes, header parsed.
    private let fields = RecordFields()
    /// The current record, once decoded.
    @exclusivity(unchecked) private var decoded: Record?
    /// The schema's entity names, for decoding without new strings.
    private let names: EntityNames

    /// A candidate whose records name entities from `names`.
    init(names: EntityNames) {
        self.names = names
    }

    /// The record's bytes, borrowed from the engine until the scan moves on.
    var bytes: UnsafeRawBufferPointer { fields.bytes }

    /// The record key.
    var key: Int64 { fields.key }

    /// Moves to the record `bytes` hold, parsing only its header; returns the index of its
    /// entity in ``EntityNames`` (`nil` when the schema lacks it). The bytes must stay valid
    /// until the next `reset`.
    func reset(_ bytes: UnsafeRawBufferPointer) throws -> Int? {
        decoded = nil
        return try fields.loadHeader(bytes, names: names)
    }

    /// The value of the attribute at `ordinal`, decoded from the bytes alone.
    func attribute(_ ordinal: Int) throws -> Value {
        try fields.attribute(ordinal)
    }

    /// The whole record.
    func record() throws -> Record {
        if let decoded { return decoded }
        let record = try fields.record(names: names)
        decoded = record
        return record
    }
}
