import Foundation

/// A single stored value: the currency every storage engine speaks.
///
/// `Value` is deliberately small. Every storable Swift type of the user API maps onto one of
/// these cases (see `AttributeType`), so a backend only ever encodes, decodes and compares
/// these nine shapes.
///
/// ## Comparison
/// `Value` is `Comparable` with one total order used by sorting everywhere (see
/// ``Value/storageOrder(_:_:)``): `null` sorts first, then numbers (booleans, integers,
/// doubles and decimals compared numerically with each other), then strings (binary UTF-8
/// order), then bytes, dates and UUIDs. Predicates use the richer rules of ``PredicateEvaluator``.
public enum Value: Sendable {
    /// The absence of a value (an optional field holding `nil`).
    case null
    /// A boolean.
    case bool(Bool)
    /// A signed 64-bit integer; all integer field types are stored as this.
    case int(Int64)
    /// A double-precision float; `Float` fields are stored widened to this.
    case double(Double)
    /// An exact decimal number.
    case decimal(Decimal)
    /// A string, compared by its UTF-8 bytes unless a predicate asks otherwise.
    case string(String)
    /// Raw bytes.
    case bytes(Data)
    /// A point in time, kept to the precision of `Date`.
    case date(Date)
    /// A UUID.
    case uuid(UUID)

    /// Whether this value is ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The rank of this value's kind in the total storage order.
    var kindRank: Int {
        switch self {
        case .null: return 0
        case .bool, .int, .double, .decimal: return 1
        case .string: return 2
        case .bytes: return 3
        case .date: return 4
        case .uuid: return 5
        }
    }

    /// The value as a number, if it is one (booleans count as 0 and 1).
    public var numericValue: NumericValue? {
        switch self {
        case .bool(let b): return .int(b ? 1 : 0)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .decimal(let d): return .decimal(d)
        default: return nil
        }
    }

    /// Compares two values in the one total order shared by every backend's sorting.
    ///
    /// Returns a negative number, zero or a positive number. Numbers compare numerically across
    /// `int`, `double`, `decimal` and `bool`; NaN sorts before every other number; strings compare
    /// by UTF-8 bytes; values of different kinds compare by kind rank.
    public static func storageOrder(_ lhs: Value, _ rhs: Value) -> Int {
        // The common same-case numbers first, exactly as ``NumericValue/compare(_:_:)`` orders
        // them (NaN below every other double, equal to NaN).
        switch (lhs, rhs) {
        case (.int(let x), .int(let y)):
            return x == y ? 0 : (x < y ? -1 : 1)
        case (.double(let x), .double(let y)):
            if x.isNaN || y.isNaN { return x.isNaN == y.isNaN ? 0 : (x.isNaN ? -1 : 1) }
            return x == y ? 0 : (x < y ? -1 : 1)
        default:
            break
        }
        let lr = lhs.kindRank, rr = rhs.kindRank
        if lr != rr { return lr < rr ? -1 : 1 }
        switch (lhs, rhs) {
        case (.null, .null):
            return 0
        case (.string(let a), .string(let b)):
            return compareUTF8(a, b)
        case (.bytes(let a), .bytes(let b)):
            return compareBytes(a, b)
        case (.date(let a), .date(let b)):
            return a == b ? 0 : (a < b ? -1 : 1)
        case (.uuid(let a), .uuid(let b)):
            return compareBytes(withUnsafeBytes(of: a.uuid) { Data($0) }, withUnsafeBytes(of: b.uuid) { Data($0) })
        default:
            guard let a = lhs.numericValue, let b = rhs.numericValue else { return 0 }
            return NumericValue.compare(a, b)
        }
    }

    /// Binary comparison of two strings' UTF-8 encodings.
    public static func compareUTF8(_ a: String, _ b: String) -> Int {
        var a = a, b = b
        return a.withUTF8 { ab in b.withUTF8 { bb in BytewiseOrder.compare(ab, bb) } }
    }

    /// Binary comparison of two byte strings.
    static func compareBytes(_ a: Data, _ b: Data) -> Int {
        a.withUnsafeBytes { ab in b.withUnsafeBytes { bb in BytewiseOrder.compare(ab.bindMemory(to: UInt8.self), bb.bindMemory(to: UInt8.self)) } }
    }
}

extension Value: Equatable, Hashable {
    /// Exact identity of stored values: strings by their UTF-8 bytes (precomposed and
    /// decomposed forms differ), doubles by bit pattern (NaN equals NaN, -0.0 differs from 0.0),
    /// other cases by value. Used to decide whether a value changed; predicates use
    /// ``PredicateEvaluator/equal(_:_:_:)`` instead.
    public static func == (lhs: Value, rhs: Value) -> Bool {
        // One case at a time: switching over the pair copied (and retained) both values first.
        switch lhs {
        case .null: if case .null = rhs { return true }
        case .bool(let a): if case .bool(let b) = rhs { return a == b }
        case .int(let a): if case .int(let b) = rhs { return a == b }
        case .double(let a): if case .double(let b) = rhs { return a.bitPattern == b.bitPattern }
        case .decimal(let a): if case .decimal(let b) = rhs { return a == b }
        case .string(let a): if case .string(let b) = rhs { return Self.sameUTF8(a, b) }
        case .bytes(let a): if case .bytes(let b) = rhs { return a == b }
        case .date(let a): if case .date(let b) = rhs { return a == b }
        case .uuid(let a): if case .uuid(let b) = rhs { return a == b }
        }
        return false
    }

    /// Whether two strings hold the same UTF-8 bytes (String's own `==` tests canonical
    /// equivalence instead), compared in one `memcmp` rather than byte by byte.
    private static func sameUTF8(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                guard x.count == y.count else { return false }
                guard let p = x.baseAddress, let q = y.baseAddress, p != q else { return true }
                return memcmp(p, q, x.count) == 0
            }
        }
    }

    /// Hashes consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let b): hasher.combine(1); hasher.combine(b)
        case .int(let i): hasher.combine(2); hasher.combine(i)
        case .double(let d): hasher.combine(3); hasher.combine(d.bitPattern)
        case .decimal(let d): hasher.combine(4); hasher.combine(d)
        case .string(let s): hasher.combine(5); for byte in s.utf8 { hasher.combine(byte) }
        case .bytes(let d): hasher.combine(6); hasher.combine(d)
        case .date(let d): hasher.combine(7); hasher.combine(d)
        case .uuid(let u): hasher.combine(8); hasher.combine(u)
        }
    }
}

extension Value: Comparable {
    /// Orders values by ``storageOrder(_:_:)``.
    public static func < (lhs: Value, rhs: Value) -> Bool {
        storageOrder(lhs, rhs) < 0
    }
}

extension Value: CustomStringConvertible {
    /// A short, readable rendering used in logs and error messages.
    public var description: String {
        switch self {
        case .null: return "nil"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return String(d)
        case .decimal(let d): return "\(d)"
        case .string(let s): return "\"\(s)\""
        case .bytes(let d): return "<\(d.count) bytes>"
        case .date(let d): return abs(d.timeIntervalSinceReferenceDate) < 2.5e11 ? d.formatted(.iso8601) : "Date(timeIntervalSinceReferenceDate: \(d.timeIntervalSinceReferenceDate))"
        case .uuid(let u): return u.uuidString
        }
    }
}

/// A number extracted from a ``Value`` for numeric comparison and aggregation.
public enum NumericValue: Sendable, Hashable {
    /// An exact integer.
    case int(Int64)
    /// A binary floating-point number.
    case double(Double)
    /// An exact decimal.
    case decimal(Decimal)

    /// The number as a `Double` (may round).
    public var doubleValue: Double {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .decimal(let d): return NSDecimalNumber(decimal: d).doubleValue
        }
    }

    /// Compares two numbers exactly where both are exact; NaN sorts before every number.
    public static func compare(_ a: NumericValue, _ b: NumericValue) -> Int {
        switch (a, b) {
        case (.int(let x), .int(let y)):
            return x == y ? 0 : (x < y ? -1 : 1)
        case (.decimal(let x), .decimal(let y)):
            return x == y ? 0 : (x < y ? -1 : 1)
        case (.int(let x), .decimal(let y)):
            let dx = Decimal(x)
            return dx == y ? 0 : (dx < y ? -1 : 1)
        case (.decimal(let x), .int(let y)):
            let dy = Decimal(y)
            return x == dy ? 0 : (x < dy ? -1 : 1)
        case (.int(let x), .double(let y)):
            return -compareDouble(y, withInt: x)
        case (.double(let x), .int(let y)):
            return compareDouble(x, withInt: y)
        default:
            let x = a.doubleValue, y = b.doubleValue
            if x.isNaN || y.isNaN { return x.isNaN == y.isNaN ? 0 : (x.isNaN ? -1 : 1) }
            return x == y ? 0 : (x < y ? -1 : 1)
        }
    }

    /// Exact comparison of a double with a 64-bit integer (no rounding of the integer).
    static func compareDouble(_ d: Double, withInt i: Int64) -> Int {
        if d.isNaN { return -1 }
        if d < -9.223372036854775808e18 { return -1 }
        if d >= 9.223372036854775808e18 { return 1 }
        let t = Int64(d.rounded(.towardZero))
        if t != i { return t < i ? -1 : 1 }
        let frac = d - Double(t)
        return frac == 0 ? 0 : (frac < 0 ? -1 : 1)
    }
}
