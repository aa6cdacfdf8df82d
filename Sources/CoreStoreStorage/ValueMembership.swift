import Foundation

/// Hashed membership in an `IN` list, agreeing exactly with
/// ``PredicateEvaluator/equal(_:_:_:)`` without string options: `contains(x)` is true exactly
/// when `equal(x, member, [])` holds for some member of the list.
///
/// Every member is reduced to a ``Key`` that is equal for two values exactly when the
/// evaluator calls them equal:
/// - booleans, integers and doubles holding an integer in the `Int64` range become that
///   integer (`true`, `1` and `1.0` share a key; `-0.0` is `0`), mirroring the exact
///   integer–double comparison of ``NumericValue/compare(_:_:)``; any other double keeps its
///   bit pattern (it can only equal the same double); NaN equals nothing and gets no key;
/// - strings are keyed by their UTF-8 bytes (precomposed and decomposed forms differ);
/// - bytes, dates and UUIDs by value; `nil` by itself.
///
/// Decimals compare with doubles through rounding, so they get no key: a decimal member is
/// checked by the linear definition against numeric values, and a decimal value is checked
/// against the whole list linearly.
package struct ValueMembership: Sendable {
    /// A member reduced to what the evaluator's equality looks at.
    private enum Key: Hashable {
        case null
        case integer(Int64)
        case double(UInt64)
        case string(UTF8Key)
        case bytes(Data)
        case date(Date)
        case uuid(UUID)
    }

    /// The keys of the members that have one.
    private let keys: Set<Key>
    /// The decimal members, compared with the linear definition.
    private let decimals: [Value]
    /// The whole list, for values without a key (decimals).
    private let members: [Value]

    /// The membership of `members`, built once in O(n).
    package init(_ members: [Value]) {
        var keys = Set<Key>(minimumCapacity: members.count)
        var decimals: [Value] = []
        for member in members {
            if case .decimal = member {
                decimals.append(member)
            } else if let key = Self.key(member) {
                keys.insert(key)
            }
        }
        self.keys = keys
        self.decimals = decimals
        self.members = members
    }

    /// Whether `value` equals some member, in ``PredicateEvaluator/equal(_:_:_:)``'s sense
    /// without string options.
    package func contains(_ value: Value) -> Bool {
        switch value {
        case .decimal:
            return members.contains { PredicateEvaluator.equal(value, $0) }
        case .double(let d) where d.isNaN:
            return false
        default:
            guard let key = Self.key(value) else { return false }
            if keys.contains(key) { return true }
            if decimals.isEmpty || value.numericValue == nil { return false }
            return decimals.contains { PredicateEvaluator.equal(value, $0) }
        }
    }

    /// The key of a value; `nil` for NaN and decimals.
    private static func key(_ value: Value) -> Key? {
        switch value {
        case .null: return .null
        case .bool(let b): return .integer(b ? 1 : 0)
        case .int(let i): return .integer(i)
        case .double(let d):
            if d.isNaN { return nil }
            if let i = exactInteger(d) { return .integer(i) }
            return .double(d.bitPattern)
        case .decimal: return nil
        case .string(let s): return .string(UTF8Key(string: s))
        case .bytes(let data): return .bytes(data)
        case .date(let date): return .date(date)
        case .uuid(let uuid): return .uuid(uuid)
        }
    }

    /// The integer a double holds exactly, when it is inside the `Int64` range: the doubles
    /// ``NumericValue/compareDouble(_:withInt:)`` calls equal to an integer.
    static func exactInteger(_ d: Double) -> Int64? {
        guard d >= -9.223372036854775808e18, d < 9.223372036854775808e18, d.rounded(.towardZero) == d else { return nil }
        return Int64(d)
    }
}

/// A string compared and hashed by its UTF-8 bytes, not by Unicode canonical equivalence.
private struct UTF8Key: Hashable {
    /// The string.
    let string: String

    static func == (lhs: UTF8Key, rhs: UTF8Key) -> Bool {
        Value.compareUTF8(lhs.string, rhs.string) == 0
    }

    func hash(into hasher: inout Hasher) {
        var s = string
        s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
