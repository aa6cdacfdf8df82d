import Foundation

/// Typed, throwing reads from dictionary-shaped import sources, such as the objects
/// `JSONSerialization` returns. A missing key, a `null`, or a value of another type becomes a
/// ``CoreStoreError/invalidImportSource(entity:sourceIndex:message:)`` that names the key and
/// what it held; the import fills in the entity and the source's index.
///
/// ```swift
/// static func uniqueID(from source: [String: Any], in transaction: BaseDataTransaction) throws -> Int? {
///     try source.importValue("id", as: Int.self)
/// }
/// ```
extension Dictionary where Key == String, Value == Any {
    /// The value at `key` as `T`. Throws when the key is missing, holds `null`, or holds a value
    /// that is not a `T` (a string where a number is expected, a fraction for an integer, a
    /// boolean for a number, …).
    public func importValue<T>(_ key: String, as type: T.Type = T.self) throws(CoreStoreError) -> T {
        guard let raw = self[key] else {
            throw CoreStoreError.invalidImportSource(entity: nil, sourceIndex: nil, message: "the key '\(key)' is missing")
        }
        guard let value = try ImportValueConversion.convert(raw, key: key, to: T.self) else {
            throw CoreStoreError.invalidImportSource(entity: nil, sourceIndex: nil, message: "the key '\(key)' is null; expected \(T.self)")
        }
        return value
    }

    /// The value at `key` as `T`, or `nil` when the key is missing or holds `null`. Throws when
    /// it holds a value that is not a `T`.
    public func importOptionalValue<T>(_ key: String, as type: T.Type = T.self) throws(CoreStoreError) -> T? {
        guard let raw = self[key] else { return nil }
        return try ImportValueConversion.convert(raw, key: key, to: T.self)
    }
}

/// The conversions behind ``Swift/Dictionary/importValue(_:as:)``.
enum ImportValueConversion {
    /// The class `JSONSerialization` uses for `true` and `false`, when it differs from other
    /// numbers' class.
    private static let booleanClass: AnyClass? = {
        let boolean: AnyClass = type(of: NSNumber(value: true))
        return boolean == type(of: NSNumber(value: 12)) ? nil : boolean
    }()

    private static func isBoolean(_ raw: Any) -> Bool {
        if raw is Bool && !(raw is NSNumber) { return true }
        guard let booleanClass, let object = raw as? NSNumber else { return false }
        return type(of: object) == booleanClass
    }

    /// `raw` as a `T`, `nil` for `NSNull`; throws when `raw` is something else.
    static func convert<T>(_ raw: Any, key: String, to type: T.Type) throws(CoreStoreError) -> T? {
        if raw is NSNull { return nil }
        if let optional = raw as? any OptionalProtocol, optional.isNone { return nil }
        let wantsBoolean = T.self == Bool.self
        let converted: T?
        if isBoolean(raw) != wantsBoolean, raw is NSNumber || raw is Bool {
            converted = nil
        } else if let value = raw as? T {
            converted = value
        } else if T.self == Double.self, let integer = raw as? Int {
            converted = Double(integer) as? T
        } else if T.self == UUID.self, let string = raw as? String {
            converted = UUID(uuidString: string) as? T
        } else if T.self == URL.self, let string = raw as? String {
            converted = URL(string: string) as? T
        } else {
            converted = nil
        }
        guard let converted else {
            throw CoreStoreError.invalidImportSource(entity: nil, sourceIndex: nil, message: "the key '\(key)' holds \(describe(raw)); expected \(T.self)")
        }
        return converted
    }

    /// A short description of a source value for error messages.
    static func describe(_ raw: Any) -> String {
        if isBoolean(raw) { return "the boolean \(raw as? Bool ?? false)" }
        switch raw {
        case let string as String:
            let shown = string.count > 40 ? String(string.prefix(40)) + "…" : string
            return "the string \"\(shown)\""
        case let number as NSNumber: return "the number \(number)"
        case let number as any BinaryInteger: return "the number \(number)"
        case let number as any BinaryFloatingPoint: return "the number \(number)"
        case is [Any]: return "an array"
        case is [String: Any]: return "an object"
        default: return "a value of type \(Swift.type(of: raw))"
        }
    }
}

/// Lets a value typed `Any` be recognized as an empty optional.
private protocol OptionalProtocol {
    var isNone: Bool { get }
}

extension Optional: OptionalProtocol {
    var isNone: Bool { self == nil }
}
