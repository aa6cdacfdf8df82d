/// Strings made from stored UTF-8 bytes: what every backend does for each text value it reads.
///
/// Most stored text is ASCII, and much of it is short (names, codes, identifiers). Through the
/// standard library's general constructors (and an ASCII check before them) a 13-byte name cost
/// about 240 instructions, a quarter of what making the object that holds it costs. So ASCII
/// text takes a shorter path here:
///
/// - up to 15 bytes: the string is built in place as a *small string*, the two words a `String`
///   holds its short ASCII contents in (the bytes, then their count under the ASCII small-string
///   tag), after checking once, at the first use, that the standard library lays small strings
///   out exactly so (``smallStringLayoutHolds``; when it does not, every string takes the path
///   below);
/// - longer: copied into a string of exactly that length.
///
/// Text that is not ASCII goes through the standard library's UTF-8 decoding as before.
package enum StoredText {
    /// The string of valid UTF-8 `bytes`, or `nil` when they are not valid UTF-8.
    package static func validated(_ bytes: UnsafeRawBufferPointer) -> String? {
        if let small = smallASCII(bytes) { return small }
        if bytes.count > smallCapacity, isASCII(bytes) { return copied(bytes) }
        // `String(decoding:as:)` repairs invalid UTF-8 instead of failing; the repaired bytes
        // differ from the stored ones, so comparing them proves the text valid (and costs far
        // less than `String(validating:as:)`'s unspecialized path).
        let units = bytes.assumingMemoryBound(to: UInt8.self)
        var text = String(decoding: units, as: UTF8.self)
        let intact = text.withUTF8 { utf8 in
            utf8.count == bytes.count && utf8.elementsEqual(units)
        }
        return intact ? text : nil
    }

    /// The string of `bytes`, with invalid UTF-8 replaced as `String(decoding:as:)` replaces it
    /// (what an engine that does not check its text, such as SQLite, may hand over).
    package static func repaired(_ bytes: UnsafeRawBufferPointer) -> String {
        if let small = smallASCII(bytes) { return small }
        if bytes.count > smallCapacity, isASCII(bytes) { return copied(bytes) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether every byte is below 0x80, eight at a time.
    private static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        var high: UInt64 = 0
        let count = bytes.count
        while i + 8 <= count {
            high |= bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < count {
            high |= UInt64(bytes[i])
            i += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }

    /// The small string of `bytes` when they are at most ``smallCapacity`` ASCII bytes (and
    /// small strings are laid out as expected); `nil` otherwise.
    @inline(__always)
    private static func smallASCII(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard bytes.count <= smallCapacity, smallStringLayoutHolds, let bits = smallASCIIBits(bytes) else { return nil }
        return unsafeBitCast(bits, to: String.self)
    }

    /// The two words of the small string of `bytes`, at most ``smallCapacity`` of them: the
    /// bytes, then their count under the tag in the top byte; `nil` when one is not ASCII.
    @inline(__always)
    private static func smallASCIIBits(_ bytes: UnsafeRawBufferPointer) -> (UInt64, UInt64)? {
        let (first, second) = words(bytes)
        guard (first | second) & 0x8080_8080_8080_8080 == 0 else { return nil }
        return (first, second | (smallASCIITag | UInt64(bytes.count)) << 56)
    }

    /// At most ``smallCapacity`` `bytes` as two little-endian words (the first eight bytes,
    /// then the rest), zero above the last byte: read with a few loads that overlap instead of
    /// byte by byte, never past the bytes.
    @inline(__always)
    private static func words(_ bytes: UnsafeRawBufferPointer) -> (UInt64, UInt64) {
        let count = bytes.count
        guard let base = bytes.baseAddress, count > 0 else { return (0, 0) }
        if count >= 8 {
            let first = UInt64(littleEndian: base.loadUnaligned(as: UInt64.self))
            guard count > 8 else { return (first, 0) }
            // The last eight bytes, shifted down past the ones the first word already holds.
            let last = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
            return (first, last >> UInt64(8 * (16 - count)))
        }
        if count >= 4 {
            let low = UInt64(UInt32(littleEndian: base.loadUnaligned(as: UInt32.self)))
            let high = UInt64(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)))
            return (low | high << UInt64(8 * (count - 4)), 0)
        }
        let middle = count >> 1
        let first = UInt64(base.load(as: UInt8.self))
            | UInt64(base.load(fromByteOffset: middle, as: UInt8.self)) << UInt64(8 * middle)
            | UInt64(base.load(fromByteOffset: count - 1, as: UInt8.self)) << UInt64(8 * (count - 1))
        return (first, 0)
    }

    /// The most bytes a small string holds (on 64-bit platforms).
    private static var smallCapacity: Int { 15 }

    /// The tag of a small ASCII string in the top four bits of its second word (immortal,
    /// ASCII, small), above its count.
    private static var smallASCIITag: UInt64 { 0xE0 }

    /// Whether the words ``smallASCIIBits(_:)`` makes are bit for bit those of the string the
    /// standard library makes of the same bytes: checked once, for every length a small string
    /// can have, before any string is built from them.
    package static let smallStringLayoutHolds: Bool = {
        guard MemoryLayout<String>.size == 16, UInt64(1).littleEndian == 1 else { return false }
        let letters = Array("abcdefghijklmno".utf8)
        return letters.withUnsafeBytes { all in
            (0...smallCapacity).allSatisfy { length in
                let bytes = UnsafeRawBufferPointer(rebasing: all[..<length])
                let standard = unsafeBitCast(String(decoding: bytes, as: UTF8.self), to: (UInt64, UInt64).self)
                return smallASCIIBits(bytes).map { $0 == standard } ?? false
            }
        }
    }()

    /// The string of ASCII `bytes`, copied into a string of exactly their length.
    private static func copied(_ bytes: UnsafeRawBufferPointer) -> String {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return "" }
        return String(unsafeUninitializedCapacity: bytes.count) { buffer in
            UnsafeMutableRawPointer(buffer.baseAddress.unsafelyUnwrapped).copyMemory(from: base, byteCount: bytes.count)
            return bytes.count
        }
    }
}
