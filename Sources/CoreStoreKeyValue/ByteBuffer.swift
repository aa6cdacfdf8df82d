import Foundation
import CoreStoreStorage

/// Appends the primitives of the binary formats (``RecordCodec`` and the stored metadata).
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func byte(_ b: UInt8) { bytes.append(b) }

    /// An unsigned LEB128 varint.
    mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// A signed integer as a zig-zag varint (small magnitudes stay short).
    mutating func signed(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// Eight bytes, big-endian.
    mutating func fixed64(_ value: UInt64) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// A length-prefixed byte string.
    mutating func blob<C: Collection>(_ data: C) where C.Element == UInt8 {
        varint(UInt64(data.count))
        bytes.append(contentsOf: data)
    }

    /// A length-prefixed UTF-8 string (NUL included as is).
    mutating func string(_ s: String) { blob(s.utf8) }
}

/// Reads what ``ByteWriter`` wrote, in place: from a value an engine hands out inside a read
/// (LMDB's map, LevelDB's iterator) or from an array the caller keeps alive. Every read checks
/// its bounds and throws ``KeyValueFormatError`` instead of trapping.
///
/// The reader borrows its bytes: use it only inside the closure that lends them
/// (``reading(_:what:position:_:)`` for an array).
struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    private(set) var position: Int
    let what: String

    init(_ bytes: UnsafeRawBufferPointer, what: String, position: Int = 0) {
        self.bytes = bytes
        self.what = what
        self.position = position
    }

    /// Runs `body` with a reader over `bytes`.
    static func reading<T>(_ bytes: [UInt8], what: String, position: Int = 0, _ body: (inout ByteReader) throws -> T) rethrows -> T {
        try bytes.withUnsafeBytes { buffer in
            var reader = ByteReader(buffer, what: what, position: position)
            return try body(&reader)
        }
    }

    var isAtEnd: Bool { position >= bytes.count }

    func damaged(_ reason: String) -> StorageError {
        KeyValueFormatError.damaged(what, "\(reason) at byte \(position) of \(bytes.count)")
    }

    @inline(__always)
    mutating func byte() throws -> UInt8 {
        guard position < bytes.count else { throw damaged("unexpected end") }
        defer { position += 1 }
        return bytes[position]
    }

    /// The next byte without moving past it; `nil` at the end.
    func peek() -> UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    @inline(__always)
    mutating func varint() throws -> UInt64 {
        // One byte holds every value below 128: most counts, lengths and small keys. That
        // case is inlined; longer varints take the loop below.
        if position < bytes.count, bytes[position] < 0x80 {
            defer { position += 1 }
            return UInt64(bytes[position])
        }
        return try multiByteVarint()
    }

    @inline(never)
    private mutating func multiByteVarint() throws -> UInt64 {
        if let base = bytes.baseAddress {
            var p = position
            if let value = Self.varint(base, &p, end: bytes.count) {
                position = p
                return value
            }
        }
        // What the direct read refused (cut short, too long) goes through the checked loop,
        // which throws the precise error.
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try byte()
            guard shift < 64, shift < 63 || b <= 1 else { throw damaged("varint too long") }
            result |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return result }
            shift += 7
        }
    }

    /// The varint at `p` in the bytes at `base`, moving `p` past it, with direct loads; `nil`
    /// for one that reaches `end`, is longer than ten bytes or whose tenth byte holds more than
    /// the top bit (the checked reader refuses those, with the precise error). For readers that
    /// hold raw pointers (``RecordFields``) and for ``varint()``'s multi-byte case.
    @inline(__always)
    static func varint(_ base: UnsafeRawPointer, _ p: inout Int, end: Int) -> UInt64? {
        // Up to three bytes (values below 2^21: record keys, lengths, counts, small numbers)
        // without a branch on the length: in a scan the lengths of one attribute's values vary
        // from record to record (ages of one or two bytes), and a branch on each byte would be
        // mispredicted about as often as the length changes. The bytes past the varint are
        // loaded but masked out.
        if end - p >= 3 {
            let b0 = UInt64(base.load(fromByteOffset: p, as: UInt8.self))
            let b1 = UInt64(base.load(fromByteOffset: p + 1, as: UInt8.self))
            let b2 = UInt64(base.load(fromByteOffset: p + 2, as: UInt8.self))
            // 1 when the byte before continues: the second byte, the third.
            let second = b0 >> 7
            let third = second & (b1 >> 7)
            if third & (b2 >> 7) == 0 {
                p += 1 + Int(truncatingIfNeeded: second &+ third)
                return b0 & 0x7F | ((b1 & 0x7F) << 7 & (0 &- second)) | (b2 << 14 & (0 &- third))
            }
        }
        var result: UInt64 = 0
        var shift: UInt64 = 0
        var q = p
        while q < end {
            let b = base.load(fromByteOffset: q, as: UInt8.self)
            q += 1
            if shift == 63 {
                guard b <= 1 else { return nil }
                p = q
                return result | UInt64(b) << 63
            }
            result |= UInt64(b & 0x7F) << shift
            if b < 0x80 {
                p = q
                return result
            }
            shift += 7
        }
        return nil
    }

    /// Moves past one varint without assembling its value; throws like ``varint()`` for one
    /// that runs past the end or past ten bytes.
    @inline(__always)
    mutating func skipVarint() throws {
        var p = position
        let end = Swift.min(bytes.count, position + 10)
        while p < end {
            let b = bytes[p]
            p += 1
            if b < 0x80 {
                // The tenth byte of a 64-bit varint holds one bit.
                if p - position == 10, b > 1 { break }
                position = p
                return
            }
        }
        _ = try multiByteVarint()
    }

    @inline(__always)
    mutating func signed() throws -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    /// A varint that must fit a count of at most `limit` items (guards huge allocations).
    @inline(__always)
    mutating func count(limit: Int? = nil) throws -> Int {
        let raw = try varint()
        let remaining = bytes.count - position
        guard raw <= UInt64(limit ?? remaining) else { throw damaged("count \(raw) exceeds the remaining data") }
        return Int(raw)
    }

    @inline(__always)
    mutating func fixed64() throws -> UInt64 {
        guard bytes.count - position >= 8 else { throw damaged("unexpected end") }
        let v = bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self)
        position += 8
        return UInt64(bigEndian: v)
    }

    /// The next `n` bytes, in place.
    @inline(__always)
    mutating func take(_ n: Int) throws -> UnsafeRawBufferPointer {
        guard n >= 0, bytes.count - position >= n else { throw damaged("unexpected end") }
        defer { position += n }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<(position + n)])
    }

    /// Moves past the next `n` bytes.
    @inline(__always)
    mutating func skip(_ n: Int) throws {
        guard n >= 0, bytes.count - position >= n else { throw damaged("unexpected end") }
        position += n
    }

    @inline(__always)
    mutating func blob() throws -> UnsafeRawBufferPointer {
        try take(try count())
    }

    mutating func string() throws -> String {
        let raw = try blob()
        guard let text = StoredText.validated(raw) else { throw damaged("invalid UTF-8") }
        return text
    }
}

/// The errors of the key-value formats, as `StorageError` values.
public enum KeyValueFormatError {
    /// The code `StorageError/engine(code:message:)` carries for damaged stored bytes.
    public static let damagedDataCode = -1_001

    /// A damaged stored value or key: `what` names it, `reason` says what is wrong.
    public static func damaged(_ what: String, _ reason: String) -> StorageError {
        .engine(code: damagedDataCode, message: "damaged \(what): \(reason)")
    }
}

/// Byte-string order for keys: unsigned bytes, lexicographic, shorter first on a tie — the
/// engines' order — with `memcmp` instead of the element-by-element generic
/// `lexicographicallyPrecedes`, which dominated the buffered writer's binary searches.
enum KeyOrder {
    /// Negative, zero or positive as `a` sorts before, equal to or after `b`.
    static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.withUnsafeBufferPointer { ap in b.withUnsafeBufferPointer { bp in BytewiseOrder.compare(ap, bp) } }
    }

    /// Whether `a` sorts before `b`.
    static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        compare(a, b) < 0
    }
}
