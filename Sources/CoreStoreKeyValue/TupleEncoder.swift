import Foundation
import CoreStoreStorage

/// An order-preserving byte encoding of `Value`s and tuples of them, in the style of the
/// FoundationDB tuple layer: keys built from it sort, as unsigned bytes, in the order of the
/// values they hold.
///
/// Every element starts with a type code; the code ranges follow the kind ranks of
/// `Value/storageOrder(_:_:)` (nil < numbers < strings < bytes < dates < UUIDs), and every
/// element is self-delimiting, so a tuple compares element by element.
///
/// | code | value | payload |
/// |---|---|---|
/// | `0x00` | `nil` | — |
/// | `0x11` | `bool` | one byte, `0` or `1` |
/// | `0x12` | `int` | 8 bytes big-endian with the sign bit flipped (Int64.min … Int64.max) |
/// | `0x14` | `double` NaN (every NaN) | — |
/// | `0x15` | `double` | 8 bytes: the bit pattern, all bits flipped for negatives, the sign bit flipped otherwise; `-0.0` is written as `0.0` |
/// | `0x16` | `decimal` NaN | — |
/// | `0x17` | `decimal` | sign class, then the decimal exponent and the significant digits (inverted for negatives) |
/// | `0x20` | `string` | UTF-8 with `0x00` written as `0x00 0xFF`, then `0x00` |
/// | `0x30` | `bytes` | as strings |
/// | `0x40` | `date` | its `timeIntervalSinceReferenceDate`, as a double |
/// | `0x50` | `uuid` | its 16 bytes |
///
/// ## What is order-preserving
/// - For two values of the **same case** (two ints, two doubles, two strings, …), comparing
///   their encodings with `memcmp` (shorter first) gives the sign of `Value/storageOrder(_:_:)`;
///   `-0.0` and `0.0` encode alike (they are equal in that order) and NaN encodes below every
///   other double (all NaNs alike).
/// - Values of **different kinds** order by kind rank, `nil` first.
/// - Within numbers, each case has its own code range: `bool` < `int` < `double` < `decimal`.
///   So the values of **one attribute type** order exactly as storageOrder: in particular an
///   integer attribute's `decimal` values above `Int64.max` (`UInt64`) sort after every `int`,
///   and in order among themselves. Mixing ints and doubles in one index does *not* order them
///   numerically; ``FetchPlanner`` only builds bounds from constants of the attribute's own case.
public enum TupleEncoder {
    /// The type code of each element.
    public enum TypeCode {
        /// `nil`.
        public static let null: UInt8 = 0x00
        /// `bool`.
        public static let bool: UInt8 = 0x11
        /// `int`.
        public static let int: UInt8 = 0x12
        /// A NaN `double`.
        public static let doubleNaN: UInt8 = 0x14
        /// A `double`.
        public static let double: UInt8 = 0x15
        /// A NaN `decimal`.
        public static let decimalNaN: UInt8 = 0x16
        /// A `decimal`.
        public static let decimal: UInt8 = 0x17
        /// `string`.
        public static let string: UInt8 = 0x20
        /// `bytes`.
        public static let bytes: UInt8 = 0x30
        /// `date`.
        public static let date: UInt8 = 0x40
        /// `uuid`.
        public static let uuid: UInt8 = 0x50
        /// One past the last code: every element is below this byte.
        public static let end: UInt8 = 0x60

        /// The half-open range of first bytes of the values of `value`'s kind rank (numbers share
        /// one range), for scanning every value of a kind.
        public static func kindRange(of value: Value) -> ClosedRange<UInt8> {
            switch value {
            case .null: return 0x00...0x00
            case .bool, .int, .double, .decimal: return 0x10...0x1F
            case .string: return 0x20...0x2F
            case .bytes: return 0x30...0x3F
            case .date: return 0x40...0x4F
            case .uuid: return 0x50...0x5F
            }
        }
    }

    /// The encoding of one tuple.
    public static func encode(_ values: [Value]) -> [UInt8] {
        var bytes: [UInt8] = []
        for value in values { encode(value, into: &bytes) }
        return bytes
    }

    /// Appends the encoding of `value` to `bytes`.
    public static func encode(_ value: Value, into bytes: inout [UInt8]) {
        switch value {
        case .null:
            bytes.append(TypeCode.null)
        case .bool(let b):
            bytes.append(TypeCode.bool)
            bytes.append(b ? 1 : 0)
        case .int(let i):
            encodeInt(i, into: &bytes)
        case .double(let d):
            if d.isNaN {
                bytes.append(TypeCode.doubleNaN)
            } else {
                bytes.append(TypeCode.double)
                appendOrderedDouble(d, into: &bytes)
            }
        case .decimal(let d):
            encodeDecimal(d, into: &bytes)
        case .string(let s):
            bytes.append(TypeCode.string)
            appendEscaped(s.utf8, into: &bytes)
        case .bytes(let data):
            bytes.append(TypeCode.bytes)
            appendEscaped(data, into: &bytes)
        case .date(let date):
            bytes.append(TypeCode.date)
            appendOrderedDouble(date.timeIntervalSinceReferenceDate, into: &bytes)
        case .uuid(let uuid):
            bytes.append(TypeCode.uuid)
            withUnsafeBytes(of: uuid.uuid) { bytes.append(contentsOf: $0) }
        }
    }

    /// Appends an `int` element (the form record keys take in keys).
    public static func encodeInt(_ i: Int64, into bytes: inout [UInt8]) {
        bytes.append(TypeCode.int)
        appendBigEndian(UInt64(bitPattern: i) ^ (1 << 63), into: &bytes)
    }

    /// The encoding of the one-element tuple `[.int(i)]`, in an array of exactly its size.
    public static func encodeInt(_ i: Int64) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(9)
        encodeInt(i, into: &bytes)
        return bytes
    }

    /// Appends a `string` element.
    public static func encodeString(_ s: String, into bytes: inout [UInt8]) {
        encode(.string(s), into: &bytes)
    }

    /// The first key after every key whose leading *elements* are exactly those encoded in
    /// `elements`: `elements + [0xFF]`. Any further element starts with a type code below
    /// `0xFF`, while a longer string or bytes value continues with `0xFF` after its escaped
    /// `0x00` — so `"a\0"` is after the range of `"a"`, unlike with ``prefixEnd(_:)``.
    public static func elementsEnd(_ elements: [UInt8]) -> [UInt8] {
        elements + [0xFF]
    }

    /// The smallest key greater than every key that starts with `prefix` (FoundationDB's
    /// `strinc`); empty when there is none (the prefix is all `0xFF`).
    public static func prefixEnd(_ prefix: [UInt8]) -> [UInt8] {
        var bytes = prefix
        while let last = bytes.last {
            if last < 0xFF {
                bytes[bytes.count - 1] = last + 1
                return bytes
            }
            bytes.removeLast()
        }
        return []
    }

    // MARK: - Pieces

    static func appendBigEndian(_ v: UInt64, into bytes: inout [UInt8]) {
        // One append of 8 bytes: appending byte by byte checked capacity and uniqueness 8 times.
        withUnsafeBytes(of: v.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// The double's bits transformed so that unsigned order is numeric order; `-0.0` as `0.0`.
    static func appendOrderedDouble(_ d: Double, into bytes: inout [UInt8]) {
        appendBigEndian(orderedBits(of: d), into: &bytes)
    }

    static func appendEscaped<C: Sequence>(_ data: C, into bytes: inout [UInt8]) where C.Element == UInt8 {
        // Most strings hold no NUL: copy their contiguous bytes at once.
        let copied = data.withContiguousStorageIfAvailable { buffer -> Bool in
            guard !buffer.contains(0) else { return false }
            bytes.append(contentsOf: buffer)
            return true
        }
        if copied == true {
            bytes.append(0)
            return
        }
        for b in data {
            bytes.append(b)
            if b == 0 { bytes.append(0xFF) }
        }
        bytes.append(0)
    }

    /// A decimal as: sign class (`0x01` negative, `0x02` zero, `0x03` positive), then for
    /// nonzero values the exponent `e` of `0.d₁d₂… × 10^e` as a biased 16-bit integer and the
    /// significant digits (no leading or trailing zeros) as ASCII, ended by `0x00`; negatives
    /// have exponent and digits inverted and end with `0xFF`, so larger magnitudes sort lower.
    static func encodeDecimal(_ d: Decimal, into bytes: inout [UInt8]) {
        guard let (negative, digits, exponent) = decimalParts(d) else {
            bytes.append(TypeCode.decimalNaN)
            return
        }
        bytes.append(TypeCode.decimal)
        if digits.isEmpty {
            bytes.append(0x02)
            return
        }
        let biased = UInt16(truncatingIfNeeded: Int(exponent) + 0x8000)
        let mask: UInt8 = negative ? 0xFF : 0x00
        bytes.append(negative ? 0x01 : 0x03)
        bytes.append(UInt8(biased >> 8) ^ mask)
        bytes.append(UInt8(biased & 0xFF) ^ mask)
        for digit in digits { bytes.append(digit ^ mask) }
        bytes.append(negative ? 0xFF : 0x00)
    }

    /// Sign, significant ASCII digits and exponent (value = 0.digits × 10^exponent) of a
    /// decimal, from its exact `description`; `nil` for NaN. Zero has no digits.
    static func decimalParts(_ d: Decimal) -> (negative: Bool, digits: [UInt8], exponent: Int)? {
        if d.isNaN { return nil }
        var text = Array(d.description.utf8)
        var negative = false
        if text.first == UInt8(ascii: "-") {
            negative = true
            text.removeFirst()
        }
        let point = text.firstIndex(of: UInt8(ascii: ".")) ?? text.count
        var digits = text.filter { $0 != UInt8(ascii: ".") }
        var exponent = point
        while digits.first == UInt8(ascii: "0") {
            digits.removeFirst()
            exponent -= 1
        }
        while digits.last == UInt8(ascii: "0") { digits.removeLast() }
        if digits.isEmpty { return (false, [], 0) }
        return (negative, digits, exponent)
    }
}
