import Foundation

/// The reference semantics of ``RecordPredicate``: every backend must keep exactly the records this
/// evaluator keeps. `docs/SEMANTICS.md` states the same rules in prose, with examples.
///
/// ## Semantics
/// - `nil` equals only `nil`; an ordering comparison (`<`, `BETWEEN`, …) with `nil` on either side
///   is false; `!= nil` is true for every non-nil value.
/// - Numbers compare by value across integer, double, decimal and boolean storage
///   (`2 == 2.0`); NaN is unequal to everything, itself included, and unordered.
/// - Strings compare by their UTF-8 bytes (so precomposed and decomposed forms differ) unless
///   `[c]` (Unicode case folding) or `[d]` (diacritics removed) is given; the modifiers apply to
///   equality, `IN`, and every string operator. `LIKE` uses `*` and `?` over Unicode scalars;
///   `MATCHES` is a whole-string ICU regular expression.
/// - Values of different kinds (a string and a number, say) are never equal and never ordered.
/// - A key path through relationships reaches a collection of leaves, combined by the
///   comparison's ``Quantifier`` (`ANY` by default): a to-many hop fans out to every destination,
///   a to-one hop without destination yields one `nil` leaf.
/// - A relationship compares with objects: `==` is true when the destinations contain the
///   object, `IN` when they contain any of the objects (never for an empty list, whichever
///   operand it is written as), `== nil` when there are none.
public struct PredicateEvaluator: Sendable {
    /// Looks up a record by identifier, for key paths through relationships.
    public typealias Resolver = @Sendable (RecordID) throws -> Record?

    private let schema: StoreSchema
    private let resolver: Resolver?
    private let regexCache = RegexCache()
    private let membershipCache = MembershipCache()
    private let ordinalCache = AttributeOrdinalCache()

    /// Creates an evaluator; without `resolver`, key paths through relationships throw.
    public init(schema: StoreSchema, resolver: Resolver? = nil) {
        self.schema = schema
        self.resolver = resolver
    }

    /// Whether `record` satisfies `predicate`.
    public func evaluate(_ predicate: RecordPredicate, on record: Record) throws -> Bool {
        switch predicate {
        case .constant(let b):
            return b
        case .not(let p):
            return try !evaluate(p, on: record)
        case .and(let ps):
            for p in ps where try !evaluate(p, on: record) { return false }
            return true
        case .or(let ps):
            for p in ps where try evaluate(p, on: record) { return true }
            return false
        case .comparison(let c):
            return try evaluate(c, on: record)
        }
    }

    /// Walks the key path to the records that own its last key (see ``Quantifier`` for how
    /// to-many hops fan out and missing to-one destinations become `nil` owners), then combines
    /// the comparison of each leaf with the quantifier.
    private func evaluate(_ c: Comparison, on record: Record) throws -> Bool {
        // The common case, an attribute of the record itself: its one leaf, without the walk.
        if c.keyPath.count == 1, c.function == nil, let ordinal = ordinalCache.ordinal(c.keyPath[0], in: record.id.entity, schema: schema) {
            let holds = try compare(record.attributes[ordinal], c.op, c.operand, c.options)
            return c.quantifier == .none ? !holds : holds
        }
        guard let last = c.keyPath.last else { throw StorageError.invalidRequest("a comparison has an empty key path") }
        var owners: [Record?] = [record]
        var entity = record.id.entity
        for key in c.keyPath.dropLast() {
            guard let ordinal = schema.relationshipOrdinal(key, in: entity), let description = schema.entity(named: entity) else {
                if schema.attributeOrdinal(key, in: entity) != nil {
                    throw StorageError.invalidRequest("'\(key)' is an attribute of '\(entity)' and cannot be followed by more keys in '\(c.keyPath.joined(separator: "."))'")
                }
                throw StorageError.unknownKey(key: key, entity: entity)
            }
            guard let resolver else {
                throw StorageError.invalidRequest("the key path '\(c.keyPath.joined(separator: "."))' needs relationship traversal")
            }
            let relationship = description.relationships[ordinal]
            var next: [Record?] = []
            for owner in owners {
                guard let owner else {
                    if !relationship.kind.isToMany { next.append(nil) }
                    continue
                }
                let destinations = try relationshipDestinations(owner, key)
                if relationship.kind.isToMany {
                    for id in destinations { if let destination = try resolver(id) { next.append(destination) } }
                } else {
                    next.append(try destinations.first.flatMap(resolver))
                }
            }
            owners = next
            entity = relationship.destinationEntity
        }

        let test: (Record?) throws -> Bool
        if schema.attributeOrdinal(last, in: entity) != nil {
            if let function = c.function {
                throw StorageError.invalidRequest("'\(function.rawValue)' needs a relationship, but '\(last)' is an attribute of '\(entity)'")
            }
            test = { owner in
                let value = try owner.map { try self.attributeValue($0, last) } ?? .null
                return try self.compare(value, c.op, c.operand, c.options)
            }
        } else if schema.relationshipOrdinal(last, in: entity) != nil {
            test = { owner in
                let destinations = try owner.map { try self.relationshipDestinations($0, last) } ?? []
                if c.function == .count {
                    return try self.compare(.int(Int64(destinations.count)), c.op, c.operand, c.options)
                }
                return try self.compareRelationship(destinations, c)
            }
        } else {
            throw StorageError.unknownKey(key: last, entity: entity)
        }

        switch c.quantifier {
        case .any:
            for owner in owners where try test(owner) { return true }
            return false
        case .all:
            for owner in owners where try !test(owner) { return false }
            return true
        case .none:
            for owner in owners where try test(owner) { return false }
            return true
        }
    }

    /// Whether one attribute value satisfies `comparison`'s operator, operand and options,
    /// ignoring its key path: the leaf test a backend can call for the parts of a predicate it
    /// does not translate itself.
    public func evaluateLeaf(_ value: Value, _ comparison: Comparison) throws -> Bool {
        try compare(value, comparison.op, comparison.operand, comparison.options)
    }

    private func attributeValue(_ record: Record, _ key: String) throws -> Value {
        guard let ordinal = ordinalCache.ordinal(key, in: record.id.entity, schema: schema) else {
            throw StorageError.unknownKey(key: key, entity: record.id.entity)
        }
        return record.attributes[ordinal]
    }

    private func relationshipDestinations(_ record: Record, _ key: String) throws -> [RecordID] {
        guard let ordinal = schema.relationshipOrdinal(key, in: record.id.entity) else {
            throw StorageError.unknownKey(key: key, entity: record.id.entity)
        }
        return record.relationships[ordinal]
    }

    private func compareRelationship(_ destinations: [RecordID], _ c: Comparison) throws -> Bool {
        switch (c.op, c.operand) {
        case (.equal, .value(.null)): return destinations.isEmpty
        case (.notEqual, .value(.null)): return !destinations.isEmpty
        case (.equal, .records(let ids)): return ids.count == 1 && destinations.contains(ids[0])
        case (.notEqual, .records(let ids)): return !(ids.count == 1 && destinations.contains(ids[0]))
        case (.in, .records(let ids)): return destinations.contains { ids.contains($0) }
        case (.in, .list(let values)) where values.isEmpty: return false
        default:
            throw StorageError.invalidRequest("relationship '\(c.keyPath.joined(separator: "."))' can only be compared with objects or nil using ==, != or IN")
        }
    }

    private func compare(_ lhs: Value, _ op: ComparisonOperator, _ operand: Operand, _ options: StringComparisonOptions) throws -> Bool {
        switch op {
        case .in:
            guard case .list(let values) = operand else { throw StorageError.invalidRequest("IN needs a list of values") }
            // A long list is hashed once (per evaluator) and probed in O(1) per record.
            if options.isEmpty, let membership = membershipCache.membership(values) { return membership.contains(lhs) }
            return values.contains { Self.equal(lhs, $0, options) }
        case .between:
            guard case .list(let values) = operand, values.count == 2 else {
                throw StorageError.invalidRequest("BETWEEN needs exactly two values")
            }
            guard let low = Self.order(lhs, values[0], options), let high = Self.order(lhs, values[1], options) else { return false }
            return low >= 0 && high <= 0
        default:
            break
        }
        guard case .value(let rhs) = operand else {
            throw StorageError.invalidRequest("'\(op.rawValue)' needs a single value")
        }
        switch op {
        case .equal: return Self.equal(lhs, rhs, options)
        case .notEqual: return !Self.equal(lhs, rhs, options)
        case .less: return Self.order(lhs, rhs, options).map { $0 < 0 } ?? false
        case .lessOrEqual: return Self.order(lhs, rhs, options).map { $0 <= 0 } ?? false
        case .greater: return Self.order(lhs, rhs, options).map { $0 > 0 } ?? false
        case .greaterOrEqual: return Self.order(lhs, rhs, options).map { $0 >= 0 } ?? false
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard case .string(let s) = lhs, case .string(let pattern) = rhs else { return false }
            return try matchString(s, op, pattern, options)
        case .in, .between:
            return false
        }
    }

    /// RecordPredicate equality of two values (see the type's semantics).
    public static func equal(_ a: Value, _ b: Value, _ options: StringComparisonOptions = []) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.string(let x), .string(let y)):
            if options.isEmpty { return Value.compareUTF8(x, y) == 0 }
            return Value.compareUTF8(fold(x, options), fold(y, options)) == 0
        default:
            return order(a, b, options) == 0
        }
    }

    /// RecordPredicate ordering: `nil` when the values are unordered (nil, NaN, different kinds).
    public static func order(_ a: Value, _ b: Value, _ options: StringComparisonOptions = []) -> Int? {
        if a.isNull || b.isNull || a.kindRank != b.kindRank { return nil }
        if case .double(let d) = a, d.isNaN { return nil }
        if case .double(let d) = b, d.isNaN { return nil }
        if case .string(let x) = a, case .string(let y) = b, !options.isEmpty {
            return Value.compareUTF8(fold(x, options), fold(y, options))
        }
        return Value.storageOrder(a, b)
    }

    /// Applies `[c]` / `[d]` to a string.
    public static func fold(_ s: String, _ options: StringComparisonOptions) -> String {
        var foundation: String.CompareOptions = []
        if options.contains(.caseInsensitive) { foundation.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { foundation.insert(.diacriticInsensitive) }
        if foundation.isEmpty { return s }
        return s.folding(options: foundation, locale: nil)
    }

    private func matchString(_ s: String, _ op: ComparisonOperator, _ pattern: String, _ options: StringComparisonOptions) throws -> Bool {
        if op == .matches {
            let regex = try regexCache.regex(pattern, caseInsensitive: options.contains(.caseInsensitive))
            let subject = options.contains(.diacriticInsensitive) ? Self.fold(s, [.diacriticInsensitive]) : s
            let range = NSRange(subject.startIndex..., in: subject)
            guard let match = regex.firstMatch(in: subject, options: [.anchored], range: range) else { return false }
            return match.range == range
        }
        let subject = Array(Self.fold(s, options).utf8)
        let needle = Array(Self.fold(pattern, options).utf8)
        switch op {
        case .beginsWith: return subject.starts(with: needle)
        case .endsWith: return subject.count >= needle.count && subject[(subject.count - needle.count)...].elementsEqual(needle)
        case .contains: return needle.isEmpty || subject.firstRange(of: needle) != nil
        case .like: return Self.like(Array(Self.fold(s, options).unicodeScalars), Array(Self.fold(pattern, options).unicodeScalars))
        default: return false
        }
    }

    /// Glob matching with `*` (any run) and `?` (one scalar), iterative with backtracking.
    static func like(_ s: [Unicode.Scalar], _ p: [Unicode.Scalar]) -> Bool {
        var i = 0, j = 0
        var star = -1, mark = 0
        while i < s.count {
            if j < p.count, p[j] == "?" || (p[j] != "*" && p[j] == s[i]) {
                i += 1; j += 1
            } else if j < p.count, p[j] == "*" {
                star = j; mark = i; j += 1
            } else if star >= 0 {
                j = star + 1; mark += 1; i = mark
            } else {
                return false
            }
        }
        while j < p.count, p[j] == "*" { j += 1 }
        return j == p.count
    }
}

/// Compiled regular expressions, shared by one evaluator's copies.
private final class RegexCache: @unchecked Sendable {
    private let lock = NSLock()
    private var cache: [String: NSRegularExpression] = [:]

    func regex(_ pattern: String, caseInsensitive: Bool) throws -> NSRegularExpression {
        let key = (caseInsensitive ? "i:" : "s:") + pattern
        lock.lock()
        defer { lock.unlock() }
        if let cached = cache[key] { return cached }
        do {
            let regex = try NSRegularExpression(pattern: pattern, options: caseInsensitive ? [.caseInsensitive] : [])
            cache[key] = regex
            return regex
        } catch {
            throw StorageError.invalidRequest("'\(pattern)' is not a valid regular expression")
        }
    }
}
