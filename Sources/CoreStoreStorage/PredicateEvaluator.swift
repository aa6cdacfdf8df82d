import Foundation

/// The reference semantics of ``RecordPredicate``: every backend must keep exactly the records this
/// evaluator keeps.
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
/// - A key path through a to-many relationship is true when any destination satisfies it.
public struct PredicateEvaluator: Sendable {
    /// Looks up a record by identifier, for key paths through relationships.
    public typealias Resolver = @Sendable (RecordID) throws -> Record?

    private let schema: StoreSchema
    private let resolver: Resolver?
    private let regexCache = RegexCache()

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
            return try evaluate(c, on: record, from: 0)
        }
    }

    private func evaluate(_ c: Comparison, on record: Record, from index: Int) throws -> Bool {
        let key = c.keyPath[index]
        let entity = record.id.entity
        let isLast = index == c.keyPath.count - 1
        if let ordinal = schema.attributeOrdinal(key, in: entity) {
            guard isLast else {
                throw StorageError.invalidRequest("'\(key)' is an attribute of '\(entity)' and cannot be followed by '.\(c.keyPath[index + 1])'")
            }
            return try compare(record.attributes[ordinal], c.op, c.operand, c.options)
        }
        guard let ordinal = schema.relationshipOrdinal(key, in: entity) else {
            throw StorageError.unknownKey(key: key, entity: entity)
        }
        let destinations = record.relationships[ordinal]
        if isLast {
            return try compareRelationship(destinations, c)
        }
        guard let resolver else {
            throw StorageError.invalidRequest("the key path '\(c.keyPath.joined(separator: "."))' needs relationship traversal")
        }
        for id in destinations {
            if let next = try resolver(id), try evaluate(c, on: next, from: index + 1) { return true }
        }
        return false
    }

    private func compareRelationship(_ destinations: [RecordID], _ c: Comparison) throws -> Bool {
        switch (c.op, c.operand) {
        case (.equal, .value(.null)): return destinations.isEmpty
        case (.notEqual, .value(.null)): return !destinations.isEmpty
        case (.equal, .records(let ids)): return ids.count == 1 && destinations.contains(ids[0])
        case (.notEqual, .records(let ids)): return !(ids.count == 1 && destinations.contains(ids[0]))
        case (.in, .records(let ids)): return destinations.contains { ids.contains($0) }
        default:
            throw StorageError.invalidRequest("relationship '\(c.keyPath.joined(separator: "."))' can only be compared with objects or nil using ==, != or IN")
        }
    }

    private func compare(_ lhs: Value, _ op: ComparisonOperator, _ operand: Operand, _ options: StringComparisonOptions) throws -> Bool {
        switch op {
        case .in:
            guard case .list(let values) = operand else { throw StorageError.invalidRequest("IN needs a list of values") }
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
