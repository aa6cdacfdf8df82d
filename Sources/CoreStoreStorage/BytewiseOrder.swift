import Foundation

/// The order of byte strings every engine and the reference semantics share: unsigned bytes
/// compared lexicographically, a prefix before its extensions. One `memcmp`, not a generic
/// element-by-element loop (this sits under every key search and every string comparison).
package enum BytewiseOrder {
    /// Negative, zero or positive as `a` sorts before, equal to or after `b`.
    @inlinable @inline(__always)
    package static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let n = min(a.count, b.count)
        if n > 0, let x = a.baseAddress, let y = b.baseAddress {
            let c = memcmp(x, y, n)
            if c != 0 { return c < 0 ? -1 : 1 }
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }
}
