import Foundation
import CoreStoreStorage

/// Reads back what ``TupleEncoder`` wrote: the pieces of record and index keys.
///
/// Decoding is exact except where the encoding is canonical: `-0.0` comes back as `0.0` and
/// every NaN as `Double.nan`. Damaged input throws `StorageError` (never traps).
public struct TupleDecoder {
    /// The key being decoded.
    private let bytes: [UInt8]
    /// The position of the next element.
    private var position: Int

    /// A decoder positioned at `offset` of `bytes`.
    public init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        position = offset
    }

    /// Whether every element was read.
    public var isAtEnd: Bool { position >= bytes.count }

    /// The position of the next element.
    public var offset: Int { position }

    /// Decodes every element of `bytes`.
    public static func decode(_ bytes: [UInt8]) throws -> [Value] {
        var decoder = TupleDecoder(bytes)
        var values: [Value] = []
        while !decoder.isAtEnd { values.append(try decoder.next()) }
        return values
    }

    /// Decodes the next element.
    public mutating func next() throws -> Value {
        let start = position
        return try ByteReader.reading(bytes, what: "key", position: start) { reader in
            defer { position = reader.position }
            return try Self.element(&reader)
        }
    }

    /// Decodes the element at `reader`'s position.
    private static func element(_ reader: inout ByteReader) throws -> Value {
        let code = try reader.byte()
        switch code {
        case TupleEncoder.TypeCode.null:
            return .null
        case TupleEncoder.TypeCode.bool:
            switch try reader.byte() {
            case 0: return .bool(false)
            case 1: return .bool(true)
            default: throw reader.damaged("invalid boolean")
            }
        case TupleEncoder.TypeCode.int:
            return .int(Int64(bitPattern: try reader.fixed64() ^ (1 << 63)))
        case TupleEncoder.TypeCode.doubleNaN:
            return .double(.nan)
        case TupleEncoder.TypeCode.double:
            return .double(try orderedDouble(&reader))
        case TupleEncoder.TypeCode.decimalNaN:
            return .decimal(.nan)
        case TupleEncoder.TypeCode.decimal:
            return .decimal(try decimal(&reader))
        case TupleEncoder.TypeCode.string:
            guard let s = String(validating: try escaped(&reader), as: UTF8.self) else { throw reader.damaged("invalid UTF-8") }
            return .string(s)
        case TupleEncoder.TypeCode.bytes:
            return .bytes(Data(try escaped(&reader)))
        case TupleEncoder.TypeCode.date:
            return .date(Date(timeIntervalSinceReferenceDate: try orderedDouble(&reader)))
        case TupleEncoder.TypeCode.uuid:
            return .uuid(UUID(uuid: try reader.take(16).loadUnaligned(as: uuid_t.self)))
        default:
            throw reader.damaged("unknown type code \(code)")
        }
    }

    /// Decodes the next element, which must be an `int`.
    public mutating func nextInt() throws -> Int64 {
        let start = position
        guard case .int(let i) = try next() else { throw damaged("expected an integer", at: start) }
        return i
    }

    /// Decodes the next element, which must be a `string`.
    public mutating func nextString() throws -> String {
        let start = position
        guard case .string(let s) = try next() else { throw damaged("expected a string", at: start) }
        return s
    }

    /// The error for a damaged key, at `position`.
    private func damaged(_ reason: String, at position: Int) -> StorageError {
        ByteReader.reading(bytes, what: "key", position: position) { $0.damaged(reason) }
    }

    private static func orderedDouble(_ reader: inout ByteReader) throws -> Double {
        let bits = try reader.fixed64()
        return Double(bitPattern: bits & (1 << 63) != 0 ? bits ^ (1 << 63) : ~bits)
    }

    private static func escaped(_ reader: inout ByteReader) throws -> [UInt8] {
        var out: [UInt8] = []
        while true {
            let b = try reader.byte()
            if b != 0 {
                out.append(b)
                continue
            }
            if reader.peek() == 0xFF {
                _ = try reader.byte()
                out.append(0)
                continue
            }
            return out
        }
    }

    private static func decimal(_ reader: inout ByteReader) throws -> Decimal {
        let sign = try reader.byte()
        if sign == 0x02 { return 0 }
        guard sign == 0x01 || sign == 0x03 else { throw reader.damaged("invalid decimal sign") }
        let mask: UInt8 = sign == 0x01 ? 0xFF : 0x00
        let high = try reader.byte() ^ mask, low = try reader.byte() ^ mask
        let exponent = Int(UInt16(high) << 8 | UInt16(low)) - 0x8000
        var digits: [UInt8] = []
        while true {
            let b = try reader.byte() ^ mask
            if b == 0 { break }
            guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { throw reader.damaged("invalid decimal digit") }
            digits.append(b)
        }
        let text = (mask != 0 ? "-" : "") + String(decoding: digits, as: UTF8.self) + "e\(exponent - digits.count)"
        guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { throw reader.damaged("invalid decimal") }
        return value
    }
}
