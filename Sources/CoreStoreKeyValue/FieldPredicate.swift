import CoreStoreStorage

/// A ``RecordPredicate`` prepared for the records of one concrete entity, so that a scan tests
/// single attributes read straight from the record's bytes (see ``RecordFields``) instead of
/// decoding every record first.
///
/// A comparison of one attribute of the entity (one-key path, no function) becomes a leaf
/// that ``PredicateEvaluator/evaluateLeaf(_:_:)`` tests: exactly what the evaluator does for
/// such a comparison (with `NONE` negating it; `ANY` and `ALL` over the single owner are the
/// test itself). Everything else — relationship paths, `@count`, unknown keys — stays a
/// record node that the evaluator checks on the decoded record, so results and errors
/// are the evaluator's. AND and OR keep their order and short-circuits.
///
/// The tree is flattened into nodes that hold only indexes and numbers, so that testing a
/// record retains nothing: the comparisons and whole-record predicates the evaluator needs sit
/// in side tables, reached only when the fast path cannot decide.
final class FieldPredicate {
    /// One node of the flattened tree.
    private enum Node {
        /// Always this result.
        case constant(Bool)
        /// The negation of the node at this index.
        case not(Int)
        /// True when every node in `children[range]` is, checked in order.
        case and(Range<Int>)
        /// True when any node in `children[range]` is, checked in order.
        case or(Range<Int>)
        /// The comparison of the attribute at `ordinal`, the evaluator's being
        /// `comparisons[comparison]`; `negated` for the `NONE` quantifier. `numeric` decides
        /// it without the evaluator when it can (see ``NumericOrder``).
        case leaf(ordinal: Int, comparison: Int, negated: Bool, numeric: NumericOrder?)
        /// `records[index]`, checked by the evaluator on the whole record.
        case record(Int)
    }

    /// The nodes; the root is the last.
    private let nodes: [Node]
    /// The node indexes of every AND and OR, each one's children contiguous.
    private let children: [Int]
    /// The comparisons of the leaves.
    private let comparisons: [Comparison]
    /// The predicates checked on whole records.
    private let records: [RecordPredicate]
    /// When the whole predicate is one numeric comparison or an AND of them (the usual
    /// filter), those comparisons in order, tested in one loop instead of walking the tree;
    /// `nil` otherwise.
    private let numericConjunction: [NumericLeaf]?

    /// A leaf comparing an attribute with a number constant.
    private struct NumericLeaf {
        let ordinal: Int
        let comparison: Int
        let negated: Bool
        let order: NumericOrder
    }

    /// `predicate` prepared for records of the concrete `entity`.
    init(_ predicate: RecordPredicate, entity: String, schema: StoreSchema) {
        var builder = Builder()
        _ = builder.add(predicate, entity: entity, schema: schema)
        nodes = builder.nodes
        children = builder.children
        comparisons = builder.comparisons
        records = builder.records
        numericConjunction = Self.numericConjunction(nodes, children)
    }

    /// The numeric leaves the root is made of, when it is one or an AND of only such leaves.
    private static func numericConjunction(_ nodes: [Node], _ children: [Int]) -> [NumericLeaf]? {
        func leaf(_ index: Int) -> NumericLeaf? {
            guard case .leaf(let ordinal, let comparison, let negated, let numeric?) = nodes[index] else { return nil }
            return NumericLeaf(ordinal: ordinal, comparison: comparison, negated: negated, order: numeric)
        }
        guard let root = nodes.indices.last else { return nil }
        if let single = leaf(root) { return [single] }
        guard case .and(let range) = nodes[root], !range.isEmpty else { return nil }
        var leaves: [NumericLeaf] = []
        for i in range {
            guard let child = leaf(children[i]) else { return nil }
            leaves.append(child)
        }
        return leaves
    }

    /// Collects the flattened tree.
    private struct Builder {
        var nodes: [Node] = []
        var children: [Int] = []
        var comparisons: [Comparison] = []
        var records: [RecordPredicate] = []

        /// Appends the nodes of `predicate` and returns the index of its root.
        mutating func add(_ predicate: RecordPredicate, entity: String, schema: StoreSchema) -> Int {
            let node: Node
            switch predicate {
            case .constant(let b):
                node = .constant(b)
            case .not(let p):
                node = .not(add(p, entity: entity, schema: schema))
            case .and(let ps), .or(let ps):
                let roots = ps.map { add($0, entity: entity, schema: schema) }
                let range = children.count..<(children.count + roots.count)
                children += roots
                if case .and = predicate { node = .and(range) } else { node = .or(range) }
            case .comparison(let c):
                if c.keyPath.count == 1, c.function == nil, let ordinal = schema.attributeOrdinal(c.keyPath[0], in: entity) {
                    comparisons.append(c)
                    node = .leaf(ordinal: ordinal, comparison: comparisons.count - 1, negated: c.quantifier == .none, numeric: NumericOrder(c))
                } else {
                    records.append(predicate)
                    node = .record(records.count - 1)
                }
            }
            nodes.append(node)
            return nodes.count - 1
        }
    }

    /// Whether the candidate satisfies the predicate.
    func evaluate(_ candidate: ScanCandidate, _ evaluator: PredicateEvaluator) throws -> Bool {
        guard let leaves = numericConjunction else { return try evaluate(nodes.count - 1, candidate, evaluator) }
        var i = 0
        while i < leaves.count {
            let leaf = leaves[i]
            let result: Bool
            if let fast = leaf.order.evaluate(try candidate.number(leaf.ordinal)) {
                result = fast
            } else {
                let value = try candidate.attribute(leaf.ordinal)
                result = try leaf.order.evaluate(value) ?? evaluator.evaluateLeaf(value, comparisons[leaf.comparison])
            }
            if result == leaf.negated { return false }
            i += 1
        }
        return true
    }

    private func evaluate(_ index: Int, _ candidate: ScanCandidate, _ evaluator: PredicateEvaluator) throws -> Bool {
        switch nodes[index] {
        case .constant(let b):
            return b
        case .not(let child):
            return try !evaluate(child, candidate, evaluator)
        case .and(let range):
            for i in range where try !evaluate(children[i], candidate, evaluator) { return false }
            return true
        case .or(let range):
            for i in range where try evaluate(children[i], candidate, evaluator) { return true }
            return false
        case .leaf(let ordinal, let comparison, let negated, let numeric):
            let result: Bool
            if let numeric, let fast = numeric.evaluate(try candidate.number(ordinal)) {
                result = fast
            } else {
                let value = try candidate.attribute(ordinal)
                if let fast = numeric?.evaluate(value) {
                    result = fast
                } else {
                    result = try evaluator.evaluateLeaf(value, comparisons[comparison])
                }
            }
            return negated ? !result : result
        case .record(let p):
            return try evaluator.evaluate(records[p], on: candidate.record())
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

    /// The result for a number read straight from the record's bytes: the same as for the
    /// ``Value`` it stands for; `nil` when the evaluator must decide.
    @inline(__always)
    func evaluate(_ number: StoredNumber) -> Bool? {
        switch number {
        case .integer(let x): return evaluate(integer: x)
        case .double(let x): return evaluate(double: x)
        case .other: return nil
        }
    }

    /// The result for `value`, `nil` when the evaluator must decide.
    @inline(__always)
    func evaluate(_ value: Value) -> Bool? {
        switch value {
        case .int(let x): return evaluate(integer: x)
        case .double(let x): return evaluate(double: x)
        default: return nil
        }
    }

    /// The result for an integer value, `nil` unless the constant is an integer too.
    @inline(__always)
    private func evaluate(integer x: Int64) -> Bool? {
        guard case .int(let c) = constant else { return nil }
        return holds(x == c ? 0 : (x < c ? -1 : 1))
    }

    /// The result for a double value, `nil` unless the constant is a double too and the value
    /// is a number.
    @inline(__always)
    private func evaluate(double x: Double) -> Bool? {
        guard case .double(let c) = constant, !x.isNaN else { return nil }
        return holds(x == c ? 0 : (x < c ? -1 : 1))
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

    /// The attribute at `ordinal` when it is stored as an integer or a double, without making
    /// a ``Value`` (see ``RecordFields/number(_:)``).
    @inline(__always)
    func number(_ ordinal: Int) throws -> StoredNumber {
        try fields.number(ordinal)
    }

    /// The whole record.
    func record() throws -> Record {
        if let decoded { return decoded }
        let record = try fields.record(names: names)
        decoded = record
        return record
    }
}
