import CoreStoreStorage

/// The exclusive upper bound of an ascending scan, prepared once for the check every visited
/// key goes through.
///
/// Keys of one scan share their first bytes with the bound (the space, generation and entity or
/// index prefix), so the check first compares the first eight bytes of both as one big-endian
/// number: that decides it for almost every key when the bound is at most eight bytes long (a
/// key that starts with the whole bound sorts at or after it). Other keys fall back to the
/// byte-by-byte comparison. The order is `memcmp` order, shorter first on a tie: the order of
/// every ``OrderedKeyValueStore``.
///
/// The engines call it from their own modules; a scan makes one before its first key.
@frozen
package struct ScanUpperBound {
    /// The bound's bytes; empty for a scan with no upper bound.
    @usableFromInline let bytes: [UInt8]
    /// The bound's first eight bytes as a big-endian number, zeros past a shorter bound.
    @usableFromInline let head: UInt64
    /// The bits of a key's first eight bytes that ``head`` is compared with: those of the
    /// bound's bytes.
    @usableFromInline let headMask: UInt64

    /// The bound `bytes` (empty: no bound).
    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
        var head: UInt64 = 0
        for (i, byte) in bytes.prefix(8).enumerated() { head |= UInt64(byte) << (56 - 8 * i) }
        self.head = head
        let headCount = min(bytes.count, 8)
        headMask = headCount == 0 ? 0 : ~UInt64(0) << (64 - 8 * headCount)
    }

    /// Whether `key` sorts before the bound: always when there is no bound.
    @inlinable @inline(__always)
    package func admits(_ key: UnsafeRawBufferPointer) -> Bool {
        let boundCount = bytes.count
        if boundCount == 0 { return true }
        if key.count >= 8 {
            let word = UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)) & headMask
            if word != head { return word < head }
            // The key starts with the bound's first eight bytes, or with all of a shorter bound
            // (and is at least as long): it sorts at or after a bound of at most eight bytes.
            if boundCount <= 8 { return false }
        }
        return bytes.withUnsafeBufferPointer { bound in
            BytewiseOrder.compare(key.assumingMemoryBound(to: UInt8.self), bound) < 0
        }
    }
}
