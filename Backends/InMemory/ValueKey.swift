import Foundation
import CoreStoreStorage

/// A ``Value`` reduced to the class of values the reference semantics treat as one, so that a
/// hash lookup can stand in for a comparison with every stored value.
///
/// Two keys come from one value in two senses:
/// - ``equalityKey(_:)``, for index lookups: two values that
///   ``PredicateEvaluator/equal(_:_:_:)`` (without string options) calls equal get equal keys.
/// - ``orderKey(_:)``, for grouping: two values get equal keys exactly when
///   ``Value/storageOrder(_:_:)`` returns `0` for them.
///
/// Both rules reduce values the same way, mirroring ``NumericValue/compare(_:_:)``:
/// booleans, integers and doubles holding an integer in the `Int64` range become that integer
/// (`true`, `1` and `1.0` share a key; `-0.0` is `0`); any other double keeps its bit pattern (a
/// non-zero, non-NaN double has one encoding, so it can only equal itself); strings are keyed by
/// their UTF-8 bytes (precomposed and decomposed forms differ); bytes, dates and UUIDs by value.
///
/// Values without a key, which callers must treat apart:
/// - decimals: they compare with doubles through rounding, so their class is not a hash class;
/// - NaN dates: `Date` equality is not reflexive for them;
/// - NaN doubles, for ``equalityKey(_:)`` only: NaN equals nothing. In storage order every NaN
///   is equal to every other NaN (and below every number), so ``orderKey(_:)`` gives them ``nan``.
enum ValueKey: Hashable, Sendable {
    /// `nil`.
    case null
    /// A boolean, an integer, or a double holding an integer in the `Int64` range.
    case integer(Int64)
    /// Any other non-NaN double, by bit pattern.
    case double(UInt64)
    /// Every NaN (storage order only).
    case nan
    /// A string, by its UTF-8 bytes.
    case string(UTF8Bytes)
    /// Raw bytes.
    case bytes(Data)
    /// A non-NaN date.
    case date(Date)
    /// A UUID.
    case uuid(UUID)

    /// The key under which `value` is found by an equality lookup; `nil` when the value has
    /// none (decimals, NaN doubles and NaN dates; see the type's description).
    static func equalityKey(_ value: Value) -> ValueKey? {
        if case .double(let d) = value, d.isNaN { return nil }
        return orderKey(value)
    }

    /// The key of `value`'s class in storage order; `nil` for decimals and NaN dates.
    static func orderKey(_ value: Value) -> ValueKey? {
        switch value {
        case .null: return .null
        case .bool(let b): return .integer(b ? 1 : 0)
        case .int(let i): return .integer(i)
        case .double(let d):
            if d.isNaN { return .nan }
            if let i = exactInteger(d) { return .integer(i) }
            return .double(d.bitPattern)
        case .decimal: return nil
        case .string(let s): return .string(UTF8Bytes(s))
        case .bytes(let data): return .bytes(data)
        case .date(let date):
            if date.timeIntervalSinceReferenceDate.isNaN { return nil }
            return .date(date)
        case .uuid(let uuid): return .uuid(uuid)
        }
    }

    /// The integer a double holds exactly, when it is inside the `Int64` range: the doubles
    /// ``NumericValue/compare(_:_:)`` calls equal to an integer.
    static func exactInteger(_ d: Double) -> Int64? {
        guard d >= -9.223372036854775808e18, d < 9.223372036854775808e18, d.rounded(.towardZero) == d else { return nil }
        return Int64(d)
    }
}

/// A string compared and hashed by its UTF-8 bytes, not by Unicode canonical equivalence.
struct UTF8Bytes: Hashable, Sendable {
    /// The string.
    let string: String

    /// Wraps `string`.
    init(_ string: String) {
        self.string = string
    }

    /// Equal when the UTF-8 encodings are identical.
    static func == (lhs: UTF8Bytes, rhs: UTF8Bytes) -> Bool {
        lhs.string.utf8.elementsEqual(rhs.string.utf8)
    }

    /// Hashes the UTF-8 encoding.
    func hash(into hasher: inout Hasher) {
        var s = string
        s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// The keys of an index's attributes for one record or one lookup, in the index's order.
///
/// The first key is kept apart so that the common one-attribute index allocates nothing.
struct KeyTuple: Hashable, Sendable {
    /// The key of the first attribute.
    var first: ValueKey
    /// The keys of the other attributes (empty for a one-attribute index).
    var rest: [ValueKey]
}
