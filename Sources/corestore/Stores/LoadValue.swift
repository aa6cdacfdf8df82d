import CoreStoreStorage
import Foundation

/// A JSON value as `corestore load` reads it: numbers keep whether they were written as
/// integers, so a 64-bit key or count reads back exactly.
enum JSONValue: Decodable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let b = try? container.decode(Bool.self) { self = .bool(b) }
        else if let i = try? container.decode(Int64.self) { self = .integer(i) }
        else if let d = try? container.decode(Double.self) { self = .number(d) }
        else if let s = try? container.decode(String.self) { self = .string(s) }
        else if let a = try? container.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    /// The value as it appears in a message.
    var shown: String {
        switch self {
        case .null: "null"
        case .bool(let b): "\(b)"
        case .integer(let i): "\(i)"
        case .number(let d): "\(d)"
        case .string(let s): DumpValueText.jsonString(s)
        case .array: "a list"
        case .object: "an object"
        }
    }
}

/// Reads values written by `corestore dump` (see ``DumpValueText``) back into stored values, by
/// the attribute's type; dates are also accepted as seconds since 1970.
enum LoadValue {
    /// `json` as a value of `attribute`; throws a message naming what was expected.
    static func value(_ json: JSONValue, for attribute: AttributeDescription) throws -> Value {
        func expected(_ what: String) -> StoreToolError {
            StoreToolError("'\(attribute.name)' must be \(what), not \(json.shown)")
        }
        if json == .null {
            guard attribute.isOptional else { throw expected("a value (it is not optional)") }
            return .null
        }
        switch (attribute.type, json) {
        case (.bool, .bool(let b)): return .bool(b)
        case (.integer, .integer(let i)): return .int(i)
        case (.integer, .string(let s)):
            // Integers above Int64.max are stored as decimals (UInt64).
            guard s.allSatisfy(\.isASCII), s.allSatisfy(\.isNumber), let d = Decimal(string: s, locale: Locale(identifier: "en_US_POSIX")) else { throw expected("an integer") }
            return .decimal(d)
        case (.double, .integer(let i)): return .double(Double(i))
        case (.double, .number(let d)): return .double(d)
        case (.double, .string("nan")): return .double(.nan)
        case (.double, .string("inf")): return .double(.infinity)
        case (.double, .string("-inf")): return .double(-.infinity)
        case (.decimal, .string(let s)):
            guard let d = Decimal(string: s, locale: Locale(identifier: "en_US_POSIX")) else { throw expected("a decimal number") }
            return .decimal(d)
        case (.decimal, .integer(let i)): return .decimal(Decimal(i))
        case (.string, .string(let s)): return .string(s)
        case (.url, .string(let s)):
            guard URL(string: s) != nil else { throw expected("a URL") }
            return .string(s)
        case (.bytes, .string(let s)):
            guard let data = Data(base64Encoded: s) else { throw expected("Base64 bytes") }
            return .bytes(data)
        case (.uuid, .string(let s)):
            guard let uuid = UUID(uuidString: s) else { throw expected("a UUID") }
            return .uuid(uuid)
        case (.date, .integer(let i)): return .date(Date(timeIntervalSince1970: Double(i)))
        case (.date, .number(let d)): return .date(Date(timeIntervalSince1970: d))
        case (.date, .string(let s)):
            guard let date = iso8601(s) else { throw expected("an ISO 8601 date such as 2026-11-27T05:41:12.5Z") }
            return .date(date)
        case (.bool, _): throw expected("true or false")
        case (.integer, _): throw expected("an integer")
        case (.double, _): throw expected("a number")
        case (.decimal, _): throw expected("a decimal number (as text)")
        case (.string, _), (.url, _), (.bytes, _), (.uuid, _): throw expected("text")
        case (.date, _): throw expected("an ISO 8601 date")
        }
    }

    /// `2026-11-27T05:41:12Z`, with up to nine fractional digits, in UTC.
    static func iso8601(_ text: String) -> Date? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = parts.first, !first.isEmpty else { return nil }
        var whole = String(first)
        var fraction = 0.0
        if parts.count == 2 {
            var digits = String(parts[1])
            guard digits.hasSuffix("Z") else { return nil }
            digits.removeLast()
            guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy(\.isASCII), let value = Double("0." + digits) else { return nil }
            fraction = value
            whole += "Z"
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        guard let date = formatter.date(from: whole) else { return nil }
        return Date(timeIntervalSince1970: date.timeIntervalSince1970 + fraction)
    }
}
