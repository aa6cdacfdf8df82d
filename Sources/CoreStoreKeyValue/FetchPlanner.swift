import CoreStoreStorage

/// How a ``KeyValueStorage`` reads the candidates of one fetch.
public struct FetchPlan: Sendable, Hashable {
    /// Where the candidates come from.
    public enum Access: Sendable, Hashable {
        /// Every record of the entity's hierarchy, in record-key order.
        case entityScan
        /// The records of the index entries with `lowerBound <= entry < upperBound`.
        case indexRange(index: String, lowerBound: [UInt8], upperBound: [UInt8])
        /// The records of the index entries in any of `ranges` (disjoint, ascending): one range
        /// per member of an `IN`. Read as a set of record keys, in record-key order — or, when the
        /// plan is ordered, range after range in index order.
        case indexRanges(index: String, ranges: [KeyRange])
    }

    /// The index entries with `lowerBound <= entry < upperBound`.
    public struct KeyRange: Sendable, Hashable {
        /// The first entry in the range, or a key before it.
        public var lowerBound: [UInt8]
        /// The key after the last entry in the range.
        public var upperBound: [UInt8]

        /// The range from `lowerBound` (inclusive) to `upperBound` (exclusive).
        public init(lowerBound: [UInt8], upperBound: [UInt8]) {
            self.lowerBound = lowerBound
            self.upperBound = upperBound
        }
    }

    /// The concrete entities whose records the request selects.
    public var entities: Set<String>
    /// How candidates are found. Unless the plan ``isExact``, the whole predicate is re-checked
    /// on every candidate, so an index only narrows the set.
    public var access: Access
    /// Whether the candidates come in the request's sort order (ties by record key), so that
    /// no sort is needed and the read can stop once offset + limit records matched.
    public var isOrdered = false
    /// Whether the index entries the plan reads are exactly the selected records that satisfy
    /// the whole predicate, one entry per record: every conjunct of the predicate is a
    /// comparison the ranges apply, on a non-unique index that only the selected entities
    /// maintain. A count then counts entries and reads no record, and a fetch does not test
    /// the predicate again on the records it reads.
    public var isExact = false

    /// The index key ranges the plan reads; none for an entity scan.
    var indexRanges: [KeyRange] {
        switch access {
        case .indexRange(_, let lower, let upper): [KeyRange(lowerBound: lower, upperBound: upper)]
        case .indexRanges(_, let all): all
        case .entityScan: []
        }
    }

    /// The name of the index the plan reads; `nil` for an entity scan.
    var indexName: String? {
        switch access {
        case .indexRange(let index, _, _), .indexRanges(let index, _): index
        case .entityScan: nil
        }
    }
}

/// Chooses the index a fetch reads, after the FoundationDB Record Layer's planner: the index
/// whose leading components are constrained by equalities in the predicate's top-level AND,
/// plus at most one range (`<`, `<=`, `>`, `>=`, `BETWEEN`) on the next component. Without such
/// an index the entity's key range is scanned.
///
/// An `IN` counts like an equality on its component: the plan reads one range per distinct
/// member (per combination of members when several components have one, up to
/// ``maximumRanges``; the first `IN` of an index is always usable). Such a plan reads record
/// keys in key order — unless the sort is by the index's components from the first `IN` on,
/// ascending: then it reads the ranges one after the other, in the sort order, and stops at
/// the limit. Among indexes of equal score the one read with fewer ranges wins.
///
/// Only comparisons whose result an index range can bound are used: a single-key path (no
/// relationship hop, `@count` or `NONE`), no string modifiers, and a constant of the
/// attribute's own value case (an `int` for an integer attribute, a non-NaN `double` for a
/// double attribute, …) or `nil` — for an `IN`, every member; and `relationship == object`,
/// `== nil` or `IN objects` for a to-one relationship (its foreign-key index). An index is
/// usable only when every concrete entity the request selects maintains it.
public struct FetchPlanner: Sendable {
    /// The layout whose indexes are considered.
    public let layout: KeyValueLayout

    /// A planner over `layout`'s indexes.
    public init(layout: KeyValueLayout) {
        self.layout = layout
    }

    /// How many index ranges a plan may combine from several `IN`s.
    public static let maximumRanges = 100_000

    private struct Constraint {
        var equal: Value?
        /// The encodings of an `IN`'s distinct members, ascending (never empty).
        var members: [[UInt8]]?
        var lower: (value: Value, inclusive: Bool)?
        var upper: (value: Value, inclusive: Bool)?
    }

    /// The plan for `request`; throws `StorageError/unknownEntity(_:)` for an unknown entity.
    public func plan(_ request: FetchRequest) throws -> FetchPlan {
        let schema = layout.schema
        guard schema.entity(named: request.entity) != nil else { throw StorageError.unknownEntity(request.entity) }
        let names = request.includesSubentities ? schema.entityAndDescendants(request.entity) : [request.entity]
        let entities = Set(names.filter { schema.entity(named: $0)?.isAbstract == false })
        var plan = FetchPlan(entities: entities, access: .entityScan)
        guard !entities.isEmpty else { return plan }
        let sortComponents = request.sortDescriptors.allSatisfy(\.ascending)
            ? request.sortDescriptors.map { IndexDefinition.Component.attribute($0.key) } : nil

        let constraints = request.predicate.map { self.constraints($0, entity: request.entity) } ?? [:]
        guard !constraints.isEmpty else {
            // No index narrows the fetch; one whose entries are in the sort order replaces the sort.
            if let sortComponents, !sortComponents.isEmpty,
               let index = layout.indexes.first(where: { $0.kind != .unique && entities.isSubset(of: $0.entities) && $0.components == sortComponents }) {
                let prefix = layout.prefix(of: index)
                plan.access = .indexRange(index: index.name, lowerBound: prefix, upperBound: TupleEncoder.elementsEnd(prefix))
                plan.isOrdered = true
            }
            return plan
        }

        var best: (score: Int, index: IndexDefinition, equalities: Int, range: Bool, ranges: Int)?
        for index in layout.indexes where entities.isSubset(of: index.entities) {
            var equalities = 0, ranges = 1
            while equalities < index.components.count, let c = constraints[index.components[equalities]] {
                if c.equal == nil {
                    guard let members = c.members, ranges == 1 || ranges * members.count <= Self.maximumRanges else { break }
                    ranges *= members.count
                }
                equalities += 1
            }
            var range = false
            if equalities < index.components.count, let c = constraints[index.components[equalities]], c.lower != nil || c.upper != nil {
                range = true
            }
            let score = equalities * 2 + (range ? 1 : 0) + (index.kind == .unique && equalities == index.components.count ? 1 : 0)
            guard score > 0 else { continue }
            if let best, score < best.score || (score == best.score && ranges >= best.ranges) { continue }
            best = (score, index, equalities, range, ranges)
        }
        guard let best else { return plan }

        // One prefix per combination of the members of the `IN`s; ascending, since every
        // element encoding is self-delimiting.
        var prefixes = [layout.prefix(of: best.index)]
        for component in best.index.components.prefix(best.equalities) {
            guard let c = constraints[component] else { continue }
            if let value = c.equal {
                for i in prefixes.indices { TupleEncoder.encode(value, into: &prefixes[i]) }
            } else if let members = c.members {
                prefixes = prefixes.flatMap { prefix in members.map { prefix + $0 } }
            }
        }
        if let predicate = request.predicate {
            plan.isExact = isExact(predicate, entity: request.entity, index: best.index, equalities: best.equalities, range: best.range, entities: entities)
        }
        let rangeConstraint = best.range ? constraints[best.index.components[best.equalities]] : nil
        let ranges = prefixes.map { Self.bounds(within: $0, rangeConstraint) }
        guard ranges.count == 1, let only = ranges.first else {
            plan.access = .indexRanges(index: best.index.name, ranges: ranges)
            // The ranges ascend, and within each the entries are ordered by the components
            // after the prefix: read one after the other, they come sorted by every component
            // from the first `IN` on. (Never on a unique index, which may leave out nil tuples.)
            let constantPrefix = best.index.components.prefix { constraints[$0]?.equal != nil }.count
            if let sortComponents, !sortComponents.isEmpty, best.index.kind != .unique,
               Array(best.index.components.dropFirst(constantPrefix)) == sortComponents {
                plan.isOrdered = true
            }
            return plan
        }
        plan.access = .indexRange(index: best.index.name, lowerBound: only.lowerBound, upperBound: only.upperBound)
        // Within the equality prefix, entries are ordered by the remaining components, then by
        // record key: exactly the sort order when the sort keys are those components, ascending.
        // (Unique indexes may leave out tuples with nil, so they never stand in for a sort.)
        if let sortComponents, !sortComponents.isEmpty, best.index.kind != .unique,
           Array(best.index.components.dropFirst(best.equalities)) == sortComponents {
            plan.isOrdered = true
        }
        return plan
    }

    /// The entries under the equality prefix `base`, narrowed by the range constraint on the
    /// next component, if any.
    private static func bounds(within base: [UInt8], _ c: Constraint?) -> FetchPlan.KeyRange {
        var lower = base, upper = TupleEncoder.elementsEnd(base)
        if let c {
            if let (value, inclusive) = c.lower {
                let encoded = base + TupleEncoder.encode([value])
                lower = inclusive ? encoded : TupleEncoder.elementsEnd(encoded)
            } else if let sample = c.upper?.value {
                lower = base + [TupleEncoder.TypeCode.kindRange(of: sample).lowerBound]
            }
            if let (value, inclusive) = c.upper {
                let encoded = base + TupleEncoder.encode([value])
                upper = inclusive ? TupleEncoder.elementsEnd(encoded) : encoded
            } else if let sample = c.lower?.value {
                upper = base + [TupleEncoder.TypeCode.kindRange(of: sample).upperBound + 1]
            }
        }
        return FetchPlan.KeyRange(lowerBound: lower, upperBound: upper)
    }

    /// Whether the ranges of a plan over `index` — equalities (or `IN`s) on its first
    /// `equalities` components, and a range on the next one when `range` — apply every conjunct
    /// of `predicate` and nothing else, and the index holds entries of the selected `entities`
    /// only. Unique indexes may leave out tuples with nil, and foreign keys hold only the
    /// destination's key, so neither qualifies.
    private func isExact(_ predicate: RecordPredicate, entity: String, index: IndexDefinition, equalities: Int, range: Bool, entities: Set<String>) -> Bool {
        let schema = layout.schema
        guard index.kind == .attribute || index.kind == .compound,
              index.entities.allSatisfy({ entities.contains($0) || schema.entity(named: $0)?.isAbstract == true }),
              let description = schema.entity(named: entity) else { return false }
        let conjuncts: [RecordPredicate]
        switch predicate {
        case .and(let ps): conjuncts = ps
        case .comparison: conjuncts = [predicate]
        default: return false
        }
        // Each component of the equality prefix must be constrained by exactly one conjunct
        // (a second one would be ignored by the plan); the range component by at most one lower
        // and one upper bound.
        var prefixConstrained = [Bool](filledWith: false, count: equalities)
        var lowerBounded = false, upperBounded = false
        var rangeType: AttributeType?
        for conjunct in conjuncts {
            guard case .comparison(let c) = conjunct, c.keyPath.count == 1, c.function == nil, c.quantifier != .none, c.options.isEmpty,
                  let ordinal = schema.attributeOrdinal(c.keyPath[0], in: entity),
                  let position = index.components.firstIndex(of: .attribute(c.keyPath[0])) else { return false }
            var probe = Constraint()
            add(c, type: description.attributes[ordinal].type, to: &probe)
            if position < equalities {
                guard probe.equal != nil || probe.members != nil, !prefixConstrained[position] else { return false }
                prefixConstrained[position] = true
            } else if range && position == equalities {
                guard probe.equal == nil, probe.members == nil, probe.lower != nil || probe.upper != nil else { return false }
                rangeType = description.attributes[ordinal].type
                if probe.lower != nil {
                    guard !lowerBounded else { return false }
                    lowerBounded = true
                }
                if probe.upper != nil {
                    guard !upperBounded else { return false }
                    upperBounded = true
                }
            } else {
                return false
            }
        }
        // A range open on one side runs to the end of its value kind's codes. For numbers and
        // dates that end holds NaNs (and a number of another case a raw storage client may have
        // stored), which the predicate need not match: only kinds without such values are exact.
        if lowerBounded != upperBounded {
            switch rangeType {
            case .string?, .url?, .bytes?, .uuid?, .bool?: break
            default: return false
            }
        }
        return true
    }

    /// The index-usable constraints of the predicate's top-level conjunction.
    private func constraints(_ predicate: RecordPredicate, entity: String) -> [IndexDefinition.Component: Constraint] {
        let conjuncts: [RecordPredicate]
        switch predicate {
        case .and(let ps): conjuncts = ps
        case .comparison: conjuncts = [predicate]
        default: conjuncts = []
        }
        var result: [IndexDefinition.Component: Constraint] = [:]
        for conjunct in conjuncts {
            guard case .comparison(let c) = conjunct, c.keyPath.count == 1, c.function == nil,
                  c.quantifier != .none, c.options.isEmpty else { continue }
            let key = c.keyPath[0]
            if let ordinal = layout.schema.attributeOrdinal(key, in: entity), let description = layout.schema.entity(named: entity) {
                let type = description.attributes[ordinal].type
                add(c, type: type, to: &result[.attribute(key), default: Constraint()])
            } else if let ordinal = layout.schema.relationshipOrdinal(key, in: entity), let description = layout.schema.entity(named: entity),
                      description.relationships[ordinal].kind == .toOne {
                switch (c.op, c.operand) {
                case (.equal, .value(.null)): result[.relationship(key), default: Constraint()].equal = .null
                case (.equal, .records(let ids)) where ids.count == 1: result[.relationship(key), default: Constraint()].equal = .int(ids[0].key)
                case (.in, .records(let ids)) where !ids.isEmpty:
                    // The foreign-key index holds the destination's record key.
                    if result[.relationship(key)]?.members == nil {
                        result[.relationship(key), default: Constraint()].members = Self.encodings(ids.map { .int($0.key) })
                    }
                default: break
                }
            }
        }
        return result.filter { $0.value.equal != nil || $0.value.members != nil || $0.value.lower != nil || $0.value.upper != nil }
    }

    private func add(_ c: Comparison, type: AttributeType, to constraint: inout Constraint) {
        switch (c.op, c.operand) {
        case (.equal, .value(let v)) where v.isNull || Self.isBoundable(v, for: type):
            if constraint.equal == nil { constraint.equal = v }
        case (.less, .value(let v)) where Self.isBoundable(v, for: type):
            if constraint.upper == nil { constraint.upper = (v, false) }
        case (.lessOrEqual, .value(let v)) where Self.isBoundable(v, for: type):
            if constraint.upper == nil { constraint.upper = (v, true) }
        case (.greater, .value(let v)) where Self.isBoundable(v, for: type):
            if constraint.lower == nil { constraint.lower = (v, false) }
        case (.greaterOrEqual, .value(let v)) where Self.isBoundable(v, for: type):
            if constraint.lower == nil { constraint.lower = (v, true) }
        case (.between, .list(let bounds)) where bounds.count == 2 && bounds.allSatisfy({ Self.isBoundable($0, for: type) }):
            if constraint.lower == nil { constraint.lower = (bounds[0], true) }
            if constraint.upper == nil { constraint.upper = (bounds[1], true) }
        case (.in, .list(let members)) where !members.isEmpty && members.allSatisfy({ $0.isNull || Self.isBoundable($0, for: type) }):
            // Each member is usable exactly like the constant of an equality.
            if constraint.members == nil { constraint.members = Self.encodings(members) }
        default:
            break
        }
    }

    /// The distinct element encodings of `values`, ascending.
    private static func encodings(_ values: [Value]) -> [[UInt8]] {
        var encoded = values.map { value in
            var bytes: [UInt8] = []
            TupleEncoder.encode(value, into: &bytes)
            return bytes
        }
        encoded.sort { $0.lexicographicallyPrecedes($1) }
        var distinct: [[UInt8]] = []
        distinct.reserveCapacity(encoded.count)
        for bytes in encoded where bytes != distinct.last { distinct.append(bytes) }
        return distinct
    }

    /// Whether a constant is of the value case the attribute type stores, so that its encoding
    /// orders against the index entries exactly like ``PredicateEvaluator`` compares.
    static func isBoundable(_ value: Value, for type: AttributeType) -> Bool {
        switch (type, value) {
        case (.bool, .bool), (.integer, .int), (.string, .string), (.url, .string), (.bytes, .bytes), (.uuid, .uuid):
            return true
        case (.double, .double(let d)):
            return !d.isNaN
        case (.decimal, .decimal(let d)):
            return !d.isNaN
        case (.date, .date(let d)):
            return !d.timeIntervalSinceReferenceDate.isNaN
        default:
            return false
        }
    }
}
