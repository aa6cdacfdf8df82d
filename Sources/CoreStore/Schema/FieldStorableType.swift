import Foundation
import CoreStoreStorage

/// A Swift type that `@Field.Stored` can persist.
///
/// Built in: `Bool`, `Int`, `Int8`…`Int64`, `UInt`, `UInt8`…`UInt64`, `Double`, `Float`,
/// `String`, `Data`, `Date`, `URL`, `UUID`, `Decimal`, their `Optional`s, and any
/// `RawRepresentable` type whose raw value is one of these once it declares conformance:
///
/// ```swift
/// enum Mood: String, FieldStorableType { case happy, grumpy }
/// ```
public protocol FieldStorableType {
    /// How the value is stored.
    static var cs_attributeType: AttributeType { get }
    /// Whether `nil` is a valid value.
    static var cs_isOptional: Bool { get }
    /// The stored form of this value.
    func cs_toStoredValue() -> Value
    /// The value for a stored form, or `nil` when the stored form does not fit this type.
    static func cs_fromStoredValue(_ value: Value) -> Self?
}

extension FieldStorableType {
    /// Non-optional by default.
    public static var cs_isOptional: Bool { false }
}

extension Bool: FieldStorableType {
    public static var cs_attributeType: AttributeType { .bool }
    @inlinable public func cs_toStoredValue() -> Value { .bool(self) }
    @inlinable public static func cs_fromStoredValue(_ value: Value) -> Bool? {
        switch value {
        case .bool(let b): return b
        case .int(let i): return i != 0
        default: return nil
        }
    }
}

/// The shared stored form of every integer type.
public protocol FieldStorableInteger: FieldStorableType, FixedWidthInteger {}

extension FieldStorableInteger {
    public static var cs_attributeType: AttributeType { .integer }
    /// Inlined into the property setters for a value that fits 64 bits; a larger one (a
    /// `UInt64` beyond `Int64.max`) is stored as a decimal, out of line.
    @inlinable @inline(__always) public func cs_toStoredValue() -> Value {
        if let i = Int64(exactly: self) { return .int(i) }
        return cs_decimalStoredValue()
    }

    /// The stored form of an integer beyond the 64-bit signed range.
    @inlinable @inline(never) func cs_decimalStoredValue() -> Value {
        .decimal(Decimal(string: String(self)) ?? 0)
    }
    /// The common case, a stored integer, inlined into the property getters (no copy of the
    /// stored value for the call); the other stored forms out of line.
    @inlinable @inline(__always) public static func cs_fromStoredValue(_ value: Value) -> Self? {
        if case .int(let i) = value { return Self(exactly: i) }
        return cs_fromOtherStoredValue(value)
    }

    /// ``cs_fromStoredValue(_:)`` for a stored form other than an integer.
    @inlinable @inline(never) static func cs_fromOtherStoredValue(_ value: Value) -> Self? {
        switch value {
        case .int(let i): return Self(exactly: i)
        case .bool(let b): return b ? 1 : 0
        case .double(let d): return Self(exactly: d)
        case .decimal(let d): return Self("\(d)")
        default: return nil
        }
    }
}

extension Int: FieldStorableInteger {}
extension Int8: FieldStorableInteger {}
extension Int16: FieldStorableInteger {}
extension Int32: FieldStorableInteger {}
extension Int64: FieldStorableInteger {}
extension UInt: FieldStorableInteger {}
extension UInt8: FieldStorableInteger {}
extension UInt16: FieldStorableInteger {}
extension UInt32: FieldStorableInteger {}
extension UInt64: FieldStorableInteger {}

extension Double: FieldStorableType {
    public static var cs_attributeType: AttributeType { .double }
    @inlinable public func cs_toStoredValue() -> Value { .double(self) }
    @inlinable public static func cs_fromStoredValue(_ value: Value) -> Double? {
        switch value {
        case .double(let d): return d
        case .int(let i): return Double(i)
        case .decimal(let d): return NSDecimalNumber(decimal: d).doubleValue
        default: return nil
        }
    }
}

extension Float: FieldStorableType {
    public static var cs_attributeType: AttributeType { .double }
    @inlinable public func cs_toStoredValue() -> Value { .double(Double(self)) }
    @inlinable public static func cs_fromStoredValue(_ value: Value) -> Float? {
        Double.cs_fromStoredValue(value).map(Float.init)
    }
}

extension Decimal: FieldStorableType {
    public static var cs_attributeType: AttributeType { .decimal }
    @inlinable public func cs_toStoredValue() -> Value { .decimal(self) }
    @inlinable public static func cs_fromStoredValue(_ value: Value) -> Decimal? {
        switch value {
        case .decimal(let d): return d
        case .int(let i): return Decimal(i)
        case .double(let d): return Decimal(d)
        case .string(let s): return Decimal(string: s)
        default: return nil
        }
    }
}

extension String: FieldStorableType {
    public static var cs_attributeType: AttributeType { .string }
    @inlinable public func cs_toStoredValue() -> Value { .string(self) }
    @inlinable public static func cs_fromStoredValue(_ value: Value) -> String? {
        if case .string(let s) = value { return s }
        return nil
    }
}

extension Data: FieldStorableType {
    public static var cs_attributeType: AttributeType { .bytes }
    @inlinable public func cs_toStoredValue() -> Value { .bytes(self) }
    @inlinable public static func cs_fromStoredValue(_ value: Value) -> Data? {
        if case .bytes(let d) = value { return d }
        return nil
    }
}

extension Date: FieldStorableType {
    public static var cs_attributeType: AttributeType { .date }
    @inlinable public func cs_toStoredValue() -> Value { .date(self) }
    @inlinable public static func cs_fromStoredValue(_ value: Value) -> Date? {
        if case .date(let d) = value { return d }
        return nil
    }
}

extension UUID: FieldStorableType {
    public static var cs_attributeType: AttributeType { .uuid }
    @inlinable public func cs_toStoredValue() -> Value { .uuid(self) }
    @inlinable public static func cs_fromStoredValue(_ value: Value) -> UUID? {
        switch value {
        case .uuid(let u): return u
        case .string(let s): return UUID(uuidString: s)
        default: return nil
        }
    }
}

extension URL: FieldStorableType {
    public static var cs_attributeType: AttributeType { .url }
    @inlinable public func cs_toStoredValue() -> Value { .string(absoluteString) }
    @inlinable public static func cs_fromStoredValue(_ value: Value) -> URL? {
        if case .string(let s) = value { return URL(string: s) }
        return nil
    }
}

extension Optional: FieldStorableType where Wrapped: FieldStorableType {
    public static var cs_attributeType: AttributeType { Wrapped.cs_attributeType }
    public static var cs_isOptional: Bool { true }
    @inlinable public func cs_toStoredValue() -> Value {
        switch self {
        case .some(let wrapped): return wrapped.cs_toStoredValue()
        case .none: return .null
        }
    }
    @inlinable public static func cs_fromStoredValue(_ value: Value) -> Optional<Wrapped>? {
        if value.isNull { return .some(.none) }
        return Wrapped.cs_fromStoredValue(value).map { .some($0) }
    }
}

extension FieldStorableType where Self: RawRepresentable, RawValue: FieldStorableType {
    public static var cs_attributeType: AttributeType { RawValue.cs_attributeType }
    @inlinable public func cs_toStoredValue() -> Value { rawValue.cs_toStoredValue() }
    @inlinable public static func cs_fromStoredValue(_ value: Value) -> Self? {
        RawValue.cs_fromStoredValue(value).flatMap(Self.init(rawValue:))
    }
}
