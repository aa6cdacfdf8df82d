import Foundation

/// A value type import sources carry and ``ImportableUniqueObject`` identifiers use: the stored
/// field types (integers, floating-point numbers, `Decimal`, `Bool`, `String`, `Date`, `Data`,
/// `UUID`, `URL`) and any `RawRepresentable` type whose raw value is one of them:
///
/// ```swift
/// enum Tier: String, ImportableAttributeType, FieldStorableType { case free, paid }
/// ```
public protocol ImportableAttributeType: QueryableAttributeType {}

extension QueryableAttributeType where Self: RawRepresentable, RawValue: QueryableAttributeType {
    /// The case whose raw value `value` holds; throws when it holds none.
    public static func cs_fromQueryableValue(_ value: Value) throws(CoreStoreError) -> Self {
        let raw = try RawValue.cs_fromQueryableValue(value)
        guard let result = Self(rawValue: raw) else {
            throw .invalidPredicate(message: "The value \(raw) is not a raw value of \(Self.self).")
        }
        return result
    }
}

extension Int: ImportableAttributeType {}
extension Int8: ImportableAttributeType {}
extension Int16: ImportableAttributeType {}
extension Int32: ImportableAttributeType {}
extension Int64: ImportableAttributeType {}
extension UInt: ImportableAttributeType {}
extension UInt8: ImportableAttributeType {}
extension UInt16: ImportableAttributeType {}
extension UInt32: ImportableAttributeType {}
extension UInt64: ImportableAttributeType {}
extension Bool: ImportableAttributeType {}
extension Double: ImportableAttributeType {}
extension Float: ImportableAttributeType {}
extension Decimal: ImportableAttributeType {}
extension String: ImportableAttributeType {}
extension Date: ImportableAttributeType {}
extension Data: ImportableAttributeType {}
extension UUID: ImportableAttributeType {}
extension URL: ImportableAttributeType {}
