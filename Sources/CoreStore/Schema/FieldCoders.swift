import Foundation

/// Turns values of one type into the bytes a ``FieldDefinition/Coded`` attribute stores, and back.
///
/// ```swift
/// enum HexColorCoder: FieldCoderType {
///     static func encodeToStoredData(_ fieldValue: Color?) -> Data? { fieldValue?.hexData }
///     static func decodeFromStoredData(_ data: Data?) -> Color? { data.flatMap(Color.init(hexData:)) }
/// }
/// ```
public protocol FieldCoderType {
    /// The type being coded.
    associatedtype FieldStoredValue
    /// The bytes to store for a value; `nil` stores nothing.
    static func encodeToStoredData(_ fieldValue: FieldStoredValue?) -> Data?
    /// The value of stored bytes; `nil` when nothing is stored or the bytes cannot be read.
    static func decodeFromStoredData(_ data: Data?) -> FieldStoredValue?
}

/// Ready-made ``FieldCoderType``s.
public enum FieldCoders {
    /// Codes any `Codable` value as JSON, keys sorted, so that equal values store equal bytes.
    public struct Json<V: Codable>: FieldCoderType {
        /// The coded type.
        public typealias FieldStoredValue = V

        /// The JSON of `fieldValue`.
        public static func encodeToStoredData(_ fieldValue: V?) -> Data? {
            guard let fieldValue else { return nil }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return try? encoder.encode(fieldValue)
        }

        /// The value the JSON encodes.
        public static func decodeFromStoredData(_ data: Data?) -> V? {
            guard let data else { return nil }
            return try? JSONDecoder().decode(V.self, from: data)
        }
    }

    /// Codes any `Codable` value as a binary property list.
    public struct Plist<V: Codable>: FieldCoderType {
        /// The coded type.
        public typealias FieldStoredValue = V

        /// The binary property list of `fieldValue`.
        public static func encodeToStoredData(_ fieldValue: V?) -> Data? {
            guard let fieldValue else { return nil }
            let encoder = PropertyListEncoder()
            encoder.outputFormat = .binary
            return try? encoder.encode(fieldValue)
        }

        /// The value the property list encodes.
        public static func decodeFromStoredData(_ data: Data?) -> V? {
            guard let data else { return nil }
            return try? PropertyListDecoder().decode(V.self, from: data)
        }
    }

    /// Codes an `NSCoding` object with a keyed archiver (Foundation's, on Linux as on Apple
    /// platforms).
    public struct NSCoding<V: NSObject & Foundation.NSCoding>: FieldCoderType {
        /// The coded type.
        public typealias FieldStoredValue = V

        /// The keyed archive of `fieldValue`.
        public static func encodeToStoredData(_ fieldValue: V?) -> Data? {
            guard let fieldValue else { return nil }
            return try? NSKeyedArchiver.archivedData(withRootObject: fieldValue, requiringSecureCoding: false)
        }

        /// The object the archive holds, when it is a `V`.
        public static func decodeFromStoredData(_ data: Data?) -> V? {
            guard let data, let unarchiver = try? NSKeyedUnarchiver(forReadingFrom: data) else { return nil }
            unarchiver.requiresSecureCoding = false
            defer { unarchiver.finishDecoding() }
            return unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? V
        }
    }

    /// Codes an `NSSecureCoding` object with a keyed archiver that decodes only `T`.
    public struct DefaultNSSecureCoding<T: DefaultNSSecureCodable>: FieldCoderType {
        /// The coded type.
        public typealias FieldStoredValue = T

        /// The keyed archive of `fieldValue`.
        public static func encodeToStoredData(_ fieldValue: T?) -> Data? {
            guard let fieldValue else { return nil }
            return try? NSKeyedArchiver.archivedData(withRootObject: fieldValue, requiringSecureCoding: true)
        }

        /// The `T` the archive holds.
        public static func decodeFromStoredData(_ data: Data?) -> T? {
            guard let data else { return nil }
            return try? NSKeyedUnarchiver.unarchivedObject(ofClass: T.self, from: data)
        }
    }
}

/// Foundation classes that ``FieldCoders/DefaultNSSecureCoding`` codes.
public protocol DefaultNSSecureCodable: NSObject, NSSecureCoding {}

extension NSArray: DefaultNSSecureCodable {}
extension NSDictionary: DefaultNSSecureCodable {}
extension NSSet: DefaultNSSecureCodable {}
extension NSString: DefaultNSSecureCodable {}
extension NSNumber: DefaultNSSecureCodable {}
extension NSDate: DefaultNSSecureCodable {}
extension NSData: DefaultNSSecureCodable {}
extension NSURL: DefaultNSSecureCodable {}
extension NSUUID: DefaultNSSecureCodable {}
