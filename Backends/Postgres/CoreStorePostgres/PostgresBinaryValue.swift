import CPostgres

/// Values in PostgreSQL's binary result format (`resultFormat = 1`), which the shared SQL
/// layer's reads ask for: the server sends numbers and `bytea` as they are stored instead of
/// printing them (no hex for `bytea`, no shortest-digits printing of doubles), and the client
/// parses nothing.
///
/// Numbers arrive in network byte order; a `numeric` as its base-10,000 digits, which
/// ``numericText(_:)`` prints exactly as the server's text output would, so a value reads the
/// same in either format.
enum PostgresBinaryValue {
    /// The type identifiers (`pg_type.oid`) of the columns these reads return.
    enum TypeID {
        static let bool: Oid = 16
        static let bytea: Oid = 17
        static let name: Oid = 19
        static let int8: Oid = 20
        static let int2: Oid = 21
        static let int4: Oid = 23
        static let text: Oid = 25
        static let oid: Oid = 26
        static let float4: Oid = 700
        static let float8: Oid = 701
        static let unknown: Oid = 705
        static let bpchar: Oid = 1042
        static let varchar: Oid = 1043
        static let numeric: Oid = 1700
    }

    /// Whether a column of `type` holds text (sent as its UTF-8 bytes).
    static func isText(_ type: Oid) -> Bool {
        type == TypeID.text || type == TypeID.varchar || type == TypeID.name || type == TypeID.bpchar || type == TypeID.unknown
    }

    /// The big-endian integer that exactly fills `bytes`.
    static func bigEndian<T: FixedWidthInteger>(_ bytes: UnsafeRawBufferPointer, as: T.Type) -> T? {
        guard bytes.count == MemoryLayout<T>.size, let base = bytes.baseAddress else { return nil }
        return T(bigEndian: base.loadUnaligned(as: T.self))
    }

    /// The integer in a column of `type`: the integer types, `oid`, `bool` (0 or 1), and a
    /// `numeric` without fraction digits inside the 64-bit range; `nil` otherwise.
    static func integer(_ bytes: UnsafeRawBufferPointer, type: Oid) -> Int64? {
        switch type {
        case TypeID.int8: return bigEndian(bytes, as: Int64.self)
        case TypeID.int4: return bigEndian(bytes, as: Int32.self).map(Int64.init)
        case TypeID.int2: return bigEndian(bytes, as: Int16.self).map(Int64.init)
        case TypeID.oid: return bigEndian(bytes, as: UInt32.self).map(Int64.init)
        case TypeID.bool: return bytes.count == 1 ? Int64(bytes[0] != 0 ? 1 : 0) : nil
        case TypeID.numeric: return Numeric.int64(bytes)
        default: return nil
        }
    }

    /// The elements of a one-dimensional `bigint[]` without NULLs in the binary format (the
    /// dimension count, a flags word, the element type, each dimension's length and lower
    /// bound, then each element's length and bytes); an empty array has no dimension. `nil`
    /// for any other value.
    static func int64Array(_ bytes: UnsafeRawBufferPointer) -> [Int64]? {
        guard bytes.count >= 12, let base = bytes.baseAddress else { return nil }
        func int32(_ offset: Int) -> Int32 { Int32(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: Int32.self)) }
        let dimensions = int32(0), elementType = Oid(bitPattern: int32(8))
        guard elementType == TypeID.int8 else { return nil }
        if dimensions == 0 { return bytes.count == 12 ? [] : nil }
        guard dimensions == 1, bytes.count >= 20 else { return nil }
        let count = Int(int32(12))
        // Each element: a length of 8, then the 8 bytes.
        guard count >= 0, bytes.count == 20 + count * 12 else { return nil }
        var values: [Int64] = []
        values.reserveCapacity(count)
        var offset = 20
        for _ in 0..<count {
            guard int32(offset) == 8 else { return nil }
            values.append(Int64(bigEndian: base.loadUnaligned(fromByteOffset: offset + 4, as: Int64.self)))
            offset += 12
        }
        return values
    }

    /// The double in a `float8` or `float4` column.
    static func double(_ bytes: UnsafeRawBufferPointer, type: Oid) -> Double? {
        switch type {
        case TypeID.float8: return bigEndian(bytes, as: UInt64.self).map(Double.init(bitPattern:))
        case TypeID.float4: return bigEndian(bytes, as: UInt32.self).map { Double(Float(bitPattern: $0)) }
        default: return nil
        }
    }

    /// The text the server prints for a `numeric` (its `numeric_out`): `NaN`, `Infinity`,
    /// `-Infinity`, or digits with exactly the value's display scale.
    static func numericText(_ bytes: UnsafeRawBufferPointer) -> String? {
        Numeric(bytes)?.text
    }

    /// A `numeric` as sent: `ndigits`, `weight`, `sign`, `dscale` (16 bits each), then the
    /// digits in base 10,000, most significant first; the first is worth 10,000^`weight`.
    struct Numeric {
        static let positive: UInt16 = 0x0000
        static let negative: UInt16 = 0x4000
        static let nan: UInt16 = 0xC000
        static let positiveInfinity: UInt16 = 0xD000
        static let negativeInfinity: UInt16 = 0xF000

        let weight: Int
        let sign: UInt16
        let scale: Int
        let digits: [Int]

        init?(_ bytes: UnsafeRawBufferPointer) {
            guard bytes.count >= 8,
                  let count = PostgresBinaryValue.bigEndian(UnsafeRawBufferPointer(rebasing: bytes[0..<2]), as: Int16.self),
                  let weight = PostgresBinaryValue.bigEndian(UnsafeRawBufferPointer(rebasing: bytes[2..<4]), as: Int16.self),
                  let sign = PostgresBinaryValue.bigEndian(UnsafeRawBufferPointer(rebasing: bytes[4..<6]), as: UInt16.self),
                  let scale = PostgresBinaryValue.bigEndian(UnsafeRawBufferPointer(rebasing: bytes[6..<8]), as: Int16.self),
                  count >= 0, scale >= 0, bytes.count == 8 + 2 * Int(count) else { return nil }
            var digits: [Int] = []
            digits.reserveCapacity(Int(count))
            for i in 0..<Int(count) {
                let offset = 8 + 2 * i
                guard let digit = PostgresBinaryValue.bigEndian(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 2]), as: Int16.self),
                      (0..<10_000).contains(digit) else { return nil }
                digits.append(Int(digit))
            }
            guard [Self.positive, Self.negative, Self.nan, Self.positiveInfinity, Self.negativeInfinity].contains(sign) else { return nil }
            self.weight = Int(weight)
            self.sign = sign
            self.scale = Int(scale)
            self.digits = digits
        }

        /// The value of the `numeric` in `bytes` when it is a whole number shown without
        /// fraction digits that fits 64 bits; `nil` for any other value and for bytes that are not
        /// a well-formed `numeric`. Reads the digits where they lie: integer attributes are
        /// `NUMERIC` columns, so every row a read returns has some, and collecting the digits
        /// first cost an array per value.
        static func int64(_ bytes: UnsafeRawBufferPointer) -> Int64? {
            guard bytes.count >= 8 else { return nil }
            func field(_ offset: Int) -> UInt16 { UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1]) }
            let count = Int(Int16(bitPattern: field(0))), weight = Int(Int16(bitPattern: field(2)))
            let sign = field(4), scale = Int16(bitPattern: field(6))
            guard count >= 0, bytes.count == 8 + 2 * count, sign == positive || sign == negative, scale == 0 else { return nil }
            guard count > 0 else { return 0 }
            guard weight >= count - 1 else { return nil }
            // Accumulated as a negative number: its range reaches Int64.min.
            var value: Int64 = 0
            for position in 0...weight {
                var digit: Int64 = 0
                if position < count {
                    let stored = Int16(bitPattern: field(8 + 2 * position))
                    guard (0..<10_000).contains(stored) else { return nil }
                    digit = Int64(stored)
                }
                let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10_000)
                let (next, overflow2) = shifted.subtractingReportingOverflow(digit)
                if overflow1 || overflow2 { return nil }
                value = next
            }
            if sign == negative { return value }
            return value == .min ? nil : -value
        }

        /// The server's text for the value (`get_str_from_var`).
        var text: String {
            switch sign {
            case Self.nan: return "NaN"
            case Self.positiveInfinity: return "Infinity"
            case Self.negativeInfinity: return "-Infinity"
            default: break
            }
            var text = sign == Self.negative ? "-" : ""
            // The whole part: the first group without leading zeros, the others four digits each.
            var position: Int
            if weight < 0 {
                text += "0"
                position = weight + 1
            } else {
                for group in 0...weight {
                    let digit = group < digits.count ? digits[group] : 0
                    text += group == 0 ? String(digit) : Self.fourDigits(digit)
                }
                position = weight + 1
            }
            // The fraction: exactly `scale` digits, zeros where no group is stored.
            if scale > 0 {
                var fraction = ""
                while fraction.count < scale {
                    let digit = position >= 0 && position < digits.count ? digits[position] : 0
                    fraction += Self.fourDigits(digit)
                    position += 1
                }
                text += "." + fraction.prefix(scale)
            }
            return text
        }

        private static func fourDigits(_ digit: Int) -> String {
            let text = String(digit)
            return String(repeating: "0", count: 4 - text.count) + text
        }
    }
}
