/// A ``RecordPredicate`` prepared for the records of one concrete entity, so that a scan tests
/// single attributes (``PredicateFields``) — read straight from a record's bytes by the
/// key-value tier, from decoded records by the in-memory store — instead of walking the
/// predicate through ``PredicateEvaluator`` for every record.
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
@usableFromInline
package final class FieldPredicate {
    /// One node of the flattened tree.
    @usableFromInline enum Node {
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
    @usableFromInline let nodes: [Node]
    /// The node indexes of every AND and OR, each one's children contiguous.
    @usableFromInline let children: [Int]
    /// The comparisons of the leaves.
    @usableFromInline let comparisons: [Comparison]
    /// The predicates checked on whole records.
    @usableFromInline let records: [RecordPredicate]
    /// When the whole predicate is one numeric comparison or an AND of them (the usual
    /// filter), those comparisons in order, tested in one loop instead of walking the tree;
    /// `nil` otherwise.
    @usableFromInline let numericConjunction: [NumericLeaf]?
    /// When ``numericConjunction`` is two comparisons of one attribute, neither negated (a
    /// range: `score >= a AND score <= b`): the attribute and the two comparisons, tested on
    /// one read of the number without the loop.
    @usableFromInline let numericRange: (ordinal: Int, lower: NumericOrder, upper: NumericOrder)?
    /// When ``numericRange`` compares with two double constants by order (`<`, `<=`, `>`,
    /// `>=`): the closed interval of doubles it accepts (see ``NumericOrder/closedInterval(_:_:)``),
    /// which a stored double other than NaN is tested against with two comparisons.
    @usableFromInline let doubleInterval: (low: Double, high: Double)?

    /// When the whole predicate is a range of one attribute between two double constants
    /// (``doubleInterval``): the attribute's ordinal and the doubles it accepts, `low...high`.
    /// A stored double `x` other than NaN satisfies the predicate exactly when
    /// `low <= x && x <= high`; any other value is left to ``evaluate(_:_:)``.
    package var doubleRange: (ordinal: Int, low: Double, high: Double)? {
        guard let range = numericRange, let interval = doubleInterval else { return nil }
        return (range.ordinal, interval.low, interval.high)
    }

    /// A leaf comparing an attribute with a number constant.
    @usableFromInline struct NumericLeaf {
        @usableFromInline let ordinal: Int
        @usableFromInline let comparison: Int
        @usableFromInline let negated: Bool
        @usableFromInline let order: NumericOrder
    }

    /// `predicate` prepared for records of the concrete `entity`.
    package init(_ predicate: RecordPredicate, entity: String, schema: StoreSchema) {
        var builder = Builder()
        _ = builder.add(predicate, entity: entity, schema: schema)
        nodes = builder.nodes
        children = builder.children
        comparisons = builder.comparisons
        records = builder.records
        numericConjunction = Self.numericConjunction(nodes, children)
        if let leaves = numericConjunction, leaves.count == 2, leaves[0].ordinal == leaves[1].ordinal,
           !leaves[0].negated, !leaves[1].negated {
            numericRange = (leaves[0].ordinal, leaves[0].order, leaves[1].order)
            doubleInterval = NumericOrder.closedInterval(leaves[0].order, leaves[1].order)
        } else {
            numericRange = nil
            doubleInterval = nil
        }
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

    /// Whether the record `candidate` reads satisfies the predicate. Inlinable, so that each
    /// scan's loop is specialized for its kind of fields.
    @inlinable @inline(__always)
    package func evaluate<Fields: PredicateFields>(_ candidate: Fields, _ evaluator: PredicateEvaluator) throws -> Bool {
        // The range test is inlined into the scan's loop; the rest is one specialized call.
        if let decided = try rangeResult(candidate) { return decided }
        return try evaluateLeavesOrTree(candidate, evaluator)
    }

    /// The result when the predicate is one numeric range and the record's number decides it;
    /// `nil` otherwise (then ask ``evaluateLeavesOrTree(_:_:)``). Needs no evaluator, so a scan's
    /// loop tests the common case without passing one.
    @inlinable @inline(__always)
    package func rangeResult<Fields: PredicateFields>(_ candidate: Fields) throws -> Bool? {
        guard let range = numericRange else { return nil }
        let number = try candidate.number(range.ordinal)
        if let interval = doubleInterval, case .double(let x) = number, !x.isNaN {
            return x >= interval.low && x <= interval.high
        }
        if let lower = range.lower.evaluate(number), let upper = range.upper.evaluate(number) { return lower && upper }
        return nil
    }

    /// ``evaluate(_:_:)`` past the range test: the numeric conjunction's loop, or the tree.
    @inlinable
    package func evaluateLeavesOrTree<Fields: PredicateFields>(_ candidate: Fields, _ evaluator: PredicateEvaluator) throws -> Bool {
        guard let leaves = numericConjunction else { return try evaluate(nodes.count - 1, candidate, evaluator) }
        var i = 0
        // A range is two leaves on one attribute: its number is read once.
        var lastOrdinal = -1
        var lastNumber = StoredNumber.other
        while i < leaves.count {
            let leaf = leaves[i]
            let result: Bool
            if leaf.ordinal != lastOrdinal {
                lastNumber = try candidate.number(leaf.ordinal)
                lastOrdinal = leaf.ordinal
            }
            if let fast = leaf.order.evaluate(lastNumber) {
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

    @inlinable
    func evaluate<Fields: PredicateFields>(_ index: Int, _ candidate: Fields, _ evaluator: PredicateEvaluator) throws -> Bool {
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
@usableFromInline
struct NumericOrder {
    /// The constant, as stored.
    @usableFromInline enum Constant {
        case int(Int64)
        case double(Double)
    }

    @usableFromInline let constant: Constant
    @usableFromInline let op: ComparisonOperator

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

    /// The result for a number read as stored (``PredicateFields/number(_:)``): the same as for the
    /// ``Value`` it stands for; `nil` when the evaluator must decide.
    @inlinable @inline(__always)
    func evaluate(_ number: StoredNumber) -> Bool? {
        switch number {
        case .integer(let x): return evaluate(integer: x)
        case .double(let x): return evaluate(double: x)
        case .other: return nil
        }
    }

    /// The result for `value`, `nil` when the evaluator must decide.
    @inlinable @inline(__always)
    func evaluate(_ value: Value) -> Bool? {
        switch value {
        case .int(let x): return evaluate(integer: x)
        case .double(let x): return evaluate(double: x)
        default: return nil
        }
    }

    /// The result for an integer value, `nil` unless the constant is an integer too.
    @inlinable @inline(__always)
    func evaluate(integer x: Int64) -> Bool? {
        guard case .int(let c) = constant else { return nil }
        return holds(x == c ? 0 : (x < c ? -1 : 1))
    }

    /// The result for a double value, `nil` unless the constant is a double too and the value
    /// is a number.
    @inlinable @inline(__always)
    func evaluate(double x: Double) -> Bool? {
        guard case .double(let c) = constant, !x.isNaN else { return nil }
        return holds(x == c ? 0 : (x < c ? -1 : 1))
    }

    /// The doubles that both `a` and `b` accept, as one closed interval `low...high` (an empty
    /// one has `low > high`), when both compare with a double constant by order; `nil`
    /// otherwise. For any double `x` other than NaN, `low <= x && x <= high` is exactly
    /// `a.evaluate(double: x)! && b.evaluate(double: x)!`: a strict bound moves to the next
    /// double inward (there is none between), and a strict bound at an infinity accepts nothing.
    static func closedInterval(_ a: NumericOrder, _ b: NumericOrder) -> (low: Double, high: Double)? {
        var low = -Double.infinity, high = Double.infinity
        for order in [a, b] {
            guard case .double(let c) = order.constant else { return nil }
            switch order.op {
            case .greaterOrEqual: low = max(low, c)
            case .greater: low = c == .infinity ? .nan : max(low, c.nextUp)
            case .lessOrEqual: high = min(high, c)
            case .less: high = c == -.infinity ? .nan : min(high, c.nextDown)
            default: return nil
            }
            // A strict bound at an infinity: nothing is accepted.
            if low.isNaN || high.isNaN { return (.infinity, -.infinity) }
        }
        return (low, high)
    }

    @inlinable @inline(__always)
    func holds(_ order: Int) -> Bool {
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
