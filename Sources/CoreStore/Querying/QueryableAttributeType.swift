import Foundation
import CoreStoreStorage

/// A type `queryValue` can return: `Select<Person, Int>(.maximum(\.$age))`.
///
/// Built in: `Bool`, `Int`, `Int8`…`Int64`, `UInt`, `UInt8`…`UInt64`, `Double`, `Float`,
/// `Decimal`, `String`, `Date`, `Data`, `UUID`, `URL` and ``ObjectID``. `queryValue` returns
/// `T?`, with `nil` for a `nil` result or no rows, so optionals are not queryable themselves.
///
/// ## Conversions
/// Numbers convert across kinds (an integer column read as `Double`, an average read as
/// `Decimal`): exactly when the target holds the value, a fraction read as an integer type is
/// rounded toward zero, and a value out of the target's range throws. Booleans read as 0 and 1,
/// and numbers 0 and 1 as booleans. `UUID` and `URL` also read strings. Any other pairing,
/// such as a string read as `Int`, throws ``CoreStoreError/invalidPredicate(message:)``.
public protocol QueryableAttributeType: SelectResultType, Hashable {
    /// Reads a raw query result as this type; throws when this type cannot hold it.
    static func cs_fromQueryableValue(_ value: Value) throws(CoreStoreError) -> Self
}

/// Every integer type: exact, fractions rounded toward zero, out of range throws.
extension QueryableAttributeType where Self: FixedWidthInteger {
    /// Reads an integer, boolean, double or decimal result.
    public static func cs_fromQueryableValue(_ value: Value) throws(CoreStoreError) -> Self {
        let converted: Self?
        switch value {
        case .int(let i): converted = Self(exactly: i)
        case .bool(let b): converted = b ? 1 : 0
        case .double(let d): converted = d.isFinite ? Self(exactly: d.rounded(.towardZero)) : nil
        case .decimal(let d): converted = QueryableValues.integer(d)
        default: throw QueryableValues.mismatch(value, Self.self)
        }
        guard let converted else { throw QueryableValues.outOfRange(value, Self.self) }
        return converted
    }
}

extension Int: QueryableAttributeType {}
extension Int8: QueryableAttributeType {}
extension Int16: QueryableAttributeType {}
extension Int32: QueryableAttributeType {}
extension Int64: QueryableAttributeType {}
extension UInt: QueryableAttributeType {}
extension UInt8: QueryableAttributeType {}
extension UInt16: QueryableAttributeType {}
extension UInt32: QueryableAttributeType {}
extension UInt64: QueryableAttributeType {}

extension Bool: QueryableAttributeType {
    /// Reads a boolean, or a number equal to 0 or 1.
    public static func cs_fromQueryableValue(_ value: Value) throws(CoreStoreError) -> Bool {
        if case .bool(let b) = value { return b }
        guard let number = value.numericValue else { throw QueryableValues.mismatch(value, Bool.self) }
        if NumericValue.compare(number, .int(0)) == 0 { return false }
        if NumericValue.compare(number, .int(1)) == 0 { return true }
        throw QueryableValues.outOfRange(value, Bool.self)
    }
}

extension Double: QueryableAttributeType {
    /// Reads any number (64-bit integers beyond 2^53 and decimals round to the nearest double).
    public static func cs_fromQueryableValue(_ value: Value) throws(CoreStoreError) -> Double {
        guard let number = value.numericValue else { throw QueryableValues.mismatch(value, Double.self) }
        return number.doubleValue
    }
}

extension Float: QueryableAttributeType {
    /// Reads any number, rounded to the nearest `Float`.
    public static func cs_fromQueryableValue(_ value: Value) throws(CoreStoreError) -> Float {
        guard let number = value.numericValue else { throw QueryableValues.mismatch(value, Float.self) }
        return Float(number.doubleValue)
    }
}

extension Decimal: QueryableAttributeType {
    /// Reads any finite number; integers and decimals exactly.
    public static func cs_fromQueryableValue(_ value: Value) throws(CoreStoreError) -> Decimal {
        switch value.numericValue {
        case .int(let i)?: return Decimal(i)
        case .decimal(let d)?: return d
        case .double(let d)?:
            guard d.isFinite else { throw QueryableValues.outOfRange(value, Decimal.self) }
            return Decimal(d)
        case nil: throw QueryableValues.mismatch(value, Decimal.self)
        }
    }
}

extension String: QueryableAttributeType {
    /// Reads a string (URL attributes are stored as strings).
    public static func cs_fromQueryableValue(_ value: Value) throws(CoreStoreError) -> String {
        guard case .string(let s) = value else { throw QueryableValues.mismatch(value, String.self) }
        return s
    }
}

extension Date: QueryableAttributeType {
    /// Reads a date.
    public static func cs_fromQueryableValue(_ value: Value) throws(CoreStoreError) -> Date {
        guard case .date(let d) = value else { throw QueryableValues.mismatch(value, Date.self) }
        return d
    }
}

extension Data: QueryableAttributeType {
    /// Reads bytes.
    public static func cs_fromQueryableValue(_ value: Value) throws(CoreStoreError) -> Data {
        guard case .bytes(let d) = value else { throw QueryableValues.mismatch(value, Data.self) }
        return d
    }
}

extension UUID: QueryableAttributeType {
    /// Reads a UUID, or a string holding one.
    public static func cs_fromQueryableValue(_ value: Value) throws(CoreStoreError) -> UUID {
        switch value {
        case .uuid(let u): return u
        case .string(let s):
            guard let u = UUID(uuidString: s) else { throw QueryableValues.outOfRange(value, UUID.self) }
            return u
        default: throw QueryableValues.mismatch(value, UUID.self)
        }
    }
}

extension URL: QueryableAttributeType {
    /// Reads a string holding a URL.
    public static func cs_fromQueryableValue(_ value: Value) throws(CoreStoreError) -> URL {
        guard case .string(let s) = value else { throw QueryableValues.mismatch(value, URL.self) }
        guard let url = URL(string: s) else { throw QueryableValues.outOfRange(value, URL.self) }
        return url
    }
}

extension ObjectID: QueryableAttributeType {
    /// Always throws: identifiers come only from ``SelectTerm/objectID(as:)`` columns, which the
    /// query hands over directly.
    public static func cs_fromQueryableValue(_ value: Value) throws(CoreStoreError) -> ObjectID {
        throw QueryableValues.mismatch(value, ObjectID.self)
    }
}

/// Shared conversions and errors of the built-in queryable types.
enum QueryableValues {
    /// A decimal's integer part (rounded toward zero), if `T` holds it.
    static func integer<T: FixedWidthInteger>(_ decimal: Decimal) -> T? {
        guard decimal.isFinite else { return nil }
        var integral = Substring("\(decimal)")
        if let dot = integral.firstIndex(of: ".") { integral = integral[..<dot] }
        if integral == "-0" { integral = "0" }
        return T(integral)
    }

    static func mismatch(_ value: Value, _ type: Any.Type) -> CoreStoreError {
        .invalidPredicate(message: "the query result \(value) (\(kind(of: value))) cannot be read as \(type)")
    }

    static func outOfRange(_ value: Value, _ type: Any.Type) -> CoreStoreError {
        .invalidPredicate(message: "the query result \(value) (\(kind(of: value))) does not fit in \(type)")
    }

    static func kind(of value: Value) -> String {
        switch value {
        case .null: return "nil"
        case .bool: return "a boolean"
        case .int: return "an integer"
        case .double: return "a double"
        case .decimal: return "a decimal"
        case .string: return "a string"
        case .bytes: return "bytes"
        case .date: return "a date"
        case .uuid: return "a UUID"
        }
    }
}
