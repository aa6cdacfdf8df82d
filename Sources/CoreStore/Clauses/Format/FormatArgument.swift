import Foundation
import CoreStoreStorage

/// The constant side of a comparison in a format string: a literal, a substituted argument,
/// or a `{…}` list of those.
enum FormatConstant: Equatable {
    /// A stored value (`nil` is ``Value/null``).
    case value(Value)
    /// An object or `ObjectID`, for comparing relationships.
    case record(RecordID)
    /// Several constants, for `IN` and `BETWEEN`; its elements are never lists.
    case list([FormatConstant])

    /// How the constant reads in an error message.
    var summary: String {
        switch self {
        case .value(let value): return value.description
        case .record(let id): return "the object \(id)"
        case .list(let elements): return "a list of \(elements.count) values"
        }
    }
}

/// Why an argument does not fit its specifier: what was expected, as a sentence fragment such as
/// `must be an integer, but it is a String ("abc")`.
struct FormatArgumentMismatch: Error {
    let reason: String
}

/// Converts the `Any?` arguments of a format string into stored values, record identifiers or
/// lists, following the specifier that consumes each one.
///
/// - `nil`, `Optional.none` (at any depth) and `NSNull` become ``Value/null``.
/// - `Bool`, every integer type, `Double`, `Float`, `Decimal`, `NSNumber`, `String`,
///   `Substring`, `NSString`, `Character`, `Date`, `Data`, `UUID`, `URL` and any
///   ``FieldStorableType`` (`RawRepresentable` enums included) become the ``Value`` a field of
///   that type stores, so a comparison sees exactly what was saved.
/// - A ``CoreStoreObject`` or ``ObjectID`` becomes its record identifier.
/// - Arrays, sets and other sequences of those become lists (for `IN`, `BETWEEN`).
enum FormatArgument {
    /// The argument of `%@`: any value, object or collection.
    static func object(_ argument: Any?) throws(FormatArgumentMismatch) -> FormatConstant {
        guard let argument = unwrapped(argument) else { return .value(.null) }
        if let scalar = try scalar(argument) { return scalar }
        if let sequence = argument as? any Sequence {
            var elements: [FormatConstant] = []
            for (index, element) in sequenceElements(sequence).enumerated() {
                guard let element = unwrapped(element) else {
                    elements.append(.value(.null))
                    continue
                }
                guard let constant = try scalar(element) else {
                    throw FormatArgumentMismatch(reason: "contains \(describe(element)) at index \(index), which is not a value, an object or an ObjectID")
                }
                elements.append(constant)
            }
            return .list(elements)
        }
        throw FormatArgumentMismatch(reason: "is \(describe(argument)), which is not a value, an object, an ObjectID or a collection of those")
    }

    /// The argument of `%d`-like specifiers: an integer (not a `Bool` or a floating-point number);
    /// with `unsigned`, a non-negative one.
    static func integer(_ argument: Any?, unsigned: Bool) throws(FormatArgumentMismatch) -> Value {
        let expectation = unsigned ? "a non-negative integer" : "an integer"
        guard let argument = unwrapped(argument) else {
            throw FormatArgumentMismatch(reason: "must be \(expectation), but it is nil")
        }
        var value: Value?
        if let number = nsNumber(argument), !isBoolean(number), !isFloatingPoint(number) {
            value = number.objCType.pointee == CChar(UInt8(ascii: "Q")) ? number.uint64Value.cs_toStoredValue() : .int(number.int64Value)
        } else if !(argument is Bool), nsNumber(argument) == nil, let integer = argument as? any BinaryInteger {
            value = storedInteger(integer)
        }
        guard let value else {
            throw FormatArgumentMismatch(reason: "must be \(expectation), but it is \(describe(argument))")
        }
        if unsigned, let order = PredicateEvaluator.order(value, .int(0)), order < 0 {
            throw FormatArgumentMismatch(reason: "must be \(expectation), but it is \(value)")
        }
        return value
    }

    /// The argument of `%f`/`%lf`: any number (not a `Bool`); integers and floats become doubles,
    /// a `Decimal` stays exact.
    static func floatingPoint(_ argument: Any?) throws(FormatArgumentMismatch) -> Value {
        guard let argument = unwrapped(argument) else {
            throw FormatArgumentMismatch(reason: "must be a number, but it is nil")
        }
        if let number = nsNumber(argument), !isBoolean(number) {
            return .double(number.doubleValue)
        }
        if nsNumber(argument) == nil, !(argument is Bool) {
            if let decimal = argument as? Decimal { return .decimal(decimal) }
            if let floating = argument as? any BinaryFloatingPoint { return .double(Double(floating)) }
            if let integer = argument as? any BinaryInteger { return .double(Double(integer)) }
        }
        throw FormatArgumentMismatch(reason: "must be a number, but it is \(describe(argument))")
    }

    /// The argument of `%s`: a string.
    static func string(_ argument: Any?) throws(FormatArgumentMismatch) -> String {
        guard let argument = unwrapped(argument), let string = stringValue(argument) else {
            throw FormatArgumentMismatch(reason: "must be a string, but it is \(describe(unwrapped(argument)))")
        }
        return string
    }

    // MARK: Conversions

    /// A single value, object or identifier; `nil` when `argument` is something else (a
    /// collection, say). `rawValueDepth` bounds the unwrapping of nested `RawRepresentable`s.
    private static func scalar(_ argument: Any, rawValueDepth: Int = 0) throws(FormatArgumentMismatch) -> FormatConstant? {
        if argument is NSNull { return .value(.null) }
        if let object = argument as? CoreStoreObject {
            guard let id = object.cs_id() else {
                throw FormatArgumentMismatch(reason: "is a \(type(of: object)) that belongs to no context, so it has no identifier to compare with")
            }
            return .record(StoreTaggedRecords.tagged(id))
        }
        if let id = argument as? ObjectID { return .record(StoreTaggedRecords.tagged(id)) }
        if let number = nsNumber(argument) { return .value(storedNumber(number)) }
        if let string = argument as? String { return .value(.string(string)) }
        if let storable = argument as? any FieldStorableType { return .value(storable.cs_toStoredValue()) }
        if let integer = argument as? any BinaryInteger { return .value(storedInteger(integer)) }
        if let floating = argument as? any BinaryFloatingPoint { return .value(.double(Double(floating))) }
        if let string = stringValue(argument) { return .value(.string(string)) }
        if let date = argument as? Date { return .value(.date(date)) }
        if let data = argument as? Data { return .value(.bytes(data)) }
        if let uuid = argument as? UUID { return .value(.uuid(uuid)) }
        if let url = argument as? URL { return .value(url.cs_toStoredValue()) }
        if rawValueDepth < 4, let representable = argument as? any RawRepresentable {
            return try scalar(representable.rawValue, rawValueDepth: rawValueDepth + 1)
        }
        return nil
    }

    /// Strips `Optional` wrappers at any depth: `nil` when the innermost value is absent.
    static func unwrapped(_ argument: Any?) -> Any? {
        var current = argument
        while let value = current {
            guard let optional = value as? any OptionalArgument else { return value }
            current = optional.wrappedArgument
        }
        return nil
    }

    private static func sequenceElements(_ sequence: some Sequence) -> [Any] {
        sequence.map { $0 as Any }
    }

    private static func stringValue(_ argument: Any) -> String? {
        if let string = argument as? String { return string }
        if let string = argument as? any StringProtocol { return String(string) }
        if let character = argument as? Character { return String(character) }
        return nil
    }

    /// An `NSNumber` instance (only a real one: Swift numbers bridge to `NSNumber` on a cast,
    /// so the class is checked first).
    private static func nsNumber(_ argument: Any) -> NSNumber? {
        guard type(of: argument) is NSNumber.Type else { return nil }
        return argument as? NSNumber
    }

    private static func isBoolean(_ number: NSNumber) -> Bool {
        String(describing: type(of: number)).contains("Boolean")
    }

    private static func isFloatingPoint(_ number: NSNumber) -> Bool {
        let code = number.objCType.pointee
        return code == CChar(UInt8(ascii: "d")) || code == CChar(UInt8(ascii: "f"))
    }

    private static func storedNumber(_ number: NSNumber) -> Value {
        if isBoolean(number) { return .bool(number.boolValue) }
        if isFloatingPoint(number) { return .double(number.doubleValue) }
        if number.objCType.pointee == CChar(UInt8(ascii: "Q")) { return number.uint64Value.cs_toStoredValue() }
        return .int(number.int64Value)
    }

    private static func storedInteger(_ integer: some BinaryInteger) -> Value {
        if let exact = Int64(exactly: integer) { return .int(exact) }
        return .decimal(Decimal(string: String(integer)) ?? 0)
    }

    /// `a String ("abc")`, for messages; long renderings are shortened.
    static func describe(_ argument: Any?) -> String {
        guard let argument else { return "nil" }
        var rendering = String(reflecting: argument)
        if rendering.count > 40 { rendering = String(rendering.prefix(37)) + "..." }
        let typeName = String(describing: type(of: argument))
        let article = typeName.first.map { "AEIO".contains($0) } == true ? "an" : "a"
        return "\(article) \(typeName) (\(rendering))"
    }
}

/// Lets ``FormatArgument`` see through `Optional` values stored in an `Any`.
protocol OptionalArgument {
    /// The wrapped value, or `nil`.
    var wrappedArgument: Any? { get }
}

extension Optional: OptionalArgument {
    var wrappedArgument: Any? {
        switch self {
        case .some(let wrapped): return wrapped
        case .none: return nil
        }
    }
}
