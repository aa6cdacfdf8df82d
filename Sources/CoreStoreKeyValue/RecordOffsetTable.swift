/// The offsets of a format-2 record's attributes (see ``RecordCodec``): where each value starts,
/// counted from the first value, in 2, 4 or 8 bytes little-endian. Borrowed from the record's
/// bytes, like the reader that found it.
struct RecordOffsetTable {
    /// No table: a record of format version 1.
    static var none: RecordOffsetTable { RecordOffsetTable(base: nil, width: 0, count: 0) }

    /// The first offset's bytes.
    private let base: UnsafeRawPointer?
    /// The size of one offset: 2, 4 or 8; 0 for ``none``.
    let width: Int
    /// The number of offsets.
    let count: Int

    /// The table of `count` offsets of `width` bytes at `base`, which the caller has checked
    /// lie inside the record's bytes.
    init(base: UnsafeRawPointer?, width: Int, count: Int) {
        self.base = base
        self.width = width
        self.count = count
    }

    /// Reads the offset width and the `count` offsets that follow it; throws when the width is
    /// not 2, 4 or 8 or the table does not fit in the bytes.
    init(_ r: inout ByteReader, count: Int) throws {
        let width = Int(try r.byte())
        guard width == 2 || width == 4 || width == 8 else { throw r.damaged("offset width \(width)") }
        let (size, overflow) = count.multipliedReportingOverflow(by: width)
        guard !overflow else { throw r.damaged("an offset table of \(count) entries") }
        self.init(base: try r.take(size).baseAddress, width: width, count: count)
    }

    /// The offset of attribute `index`, which is below ``count`` (`Int.max` for an 8-byte
    /// offset beyond it, which no record reaches).
    @inline(__always)
    func offset(_ index: Int) -> Int {
        switch width {
        case 2: return Int(UInt16(littleEndian: base.unsafelyUnwrapped.loadUnaligned(fromByteOffset: index &* 2, as: UInt16.self)))
        case 4: return Int(UInt32(littleEndian: base.unsafelyUnwrapped.loadUnaligned(fromByteOffset: index &* 4, as: UInt32.self)))
        default: return Int(clamping: UInt64(littleEndian: base.unsafelyUnwrapped.loadUnaligned(fromByteOffset: index &* 8, as: UInt64.self)))
        }
    }
}
