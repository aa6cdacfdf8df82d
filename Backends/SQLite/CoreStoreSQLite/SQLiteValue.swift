import Foundation
import CoreStoreSQL
import CoreStoreStorage

/// How each attribute type is kept in a column (see the module documentation):
///
/// | type | column | value |
/// |---|---|---|
/// | bool | `INTEGER` | 0 or 1 |
/// | integer | `INTEGER` | the integer; a `UInt64` above `Int64.max` as the text `u` + 20 digits, which sorts after every integer and in numeric order among itself |
/// | double | no declared type (so that SQLite keeps every bit, `-0.0` included) | REAL; NaN as the text `NaN` (SQLite cannot store NaN as a number) |
/// | decimal | `TEXT COLLATE CORESTORE_DECIMAL` | the decimal's text, compared numerically by the collation |
/// | string, url | `TEXT` (binary collation: UTF-8 byte order) | the text |
/// | bytes | `BLOB` | the bytes |
/// | date | `REAL` | seconds since 2001-01-01 00:00:00 UTC (`Date`'s own representation, so no rounding) |
/// | uuid | `BLOB` | the 16 bytes |
enum SQLiteValueCodec {
    /// The declared column type (and collation) of an attribute type.
    static func columnDefinition(_ type: AttributeType) -> String {
        switch type {
        case .bool, .integer: return "INTEGER"
        case .double: return ""
        case .decimal: return "TEXT COLLATE CORESTORE_DECIMAL"
        case .string, .url: return "TEXT"
        case .bytes, .uuid: return "BLOB"
        case .date: return "REAL"
        }
    }

    static let bigIntegerPrefix = "u"

    /// The column value of `value` in a column of `type`.
    static func encode(_ value: Value, as type: AttributeType) -> SQLValue {
        switch value {
        case .null: return .null
        case .bool(let b): return .integer(b ? 1 : 0)
        case .int(let i): return type == .double ? .real(Double(i)) : .integer(i)
        case .double(let d): return d.isNaN ? .text("NaN") : .real(d)
        case .decimal(let d):
            if type == .integer { return encodeBigInteger(d) }
            return .text(decimalText(d))
        case .string(let s): return .text(s)
        case .bytes(let data): return .blob(data)
        case .date(let date): return .real(date.timeIntervalSinceReferenceDate)
        case .uuid(let uuid): return .blob(withUnsafeBytes(of: uuid.uuid) { Data($0) })
        }
    }

    /// A `UInt64`-range decimal in an integer column: `u` and 20 zero-padded digits.
    static func encodeBigInteger(_ d: Decimal) -> SQLValue {
        let digits = decimalText(d)
        return .text(bigIntegerPrefix + String(repeating: "0", count: max(0, 20 - digits.count)) + digits)
    }

    /// The canonical text of a decimal.
    static func decimalText(_ d: Decimal) -> String {
        var d = d
        return NSDecimalString(&d, Locale(identifier: "en_US_POSIX"))
    }

    /// Parses a decimal written by ``decimalText(_:)``.
    static func decimal(fromText text: String) -> Decimal? {
        Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }

    /// The attribute value of a column value; throws when the column holds something this
    /// type never writes (a damaged or foreign database).
    static func decode(_ value: SQLValue, as type: AttributeType) throws -> Value {
        switch (type, value) {
        case (_, .null): return .null
        case (.bool, .integer(let i)): return .bool(i != 0)
        case (.integer, .integer(let i)): return .int(i)
        case (.integer, .text(let s)) where s.hasPrefix(bigIntegerPrefix):
            if let d = decimal(fromText: String(s.dropFirst())) { return .decimal(d) }
        case (.double, .real(let d)): return .double(d)
        case (.double, .integer(let i)): return .double(Double(i))
        case (.double, .text("NaN")): return .double(.nan)
        case (.decimal, .text(let s)):
            if let d = decimal(fromText: s) { return .decimal(d) }
        case (.string, .text(let s)), (.url, .text(let s)): return .string(s)
        case (.bytes, .blob(let data)): return .bytes(data)
        case (.date, .real(let t)): return .date(Date(timeIntervalSinceReferenceDate: t))
        case (.date, .integer(let t)): return .date(Date(timeIntervalSinceReferenceDate: Double(t)))
        case (.uuid, .blob(let data)) where data.count == 16:
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &uuid) { $0.copyBytes(from: data) }
            return .uuid(UUID(uuid: uuid))
        default:
            break
        }
        throw StorageError.engine(code: 11, message: "a column of type \(type.rawValue) holds an unexpected value (\(value)); the database is damaged or was changed by another program")
    }
}
