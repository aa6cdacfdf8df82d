import Testing
import CoreStoreStorage
@testable import CoreStoreKeyValue

/// ``ScanUpperBound``: its eight-byte shortcut admits exactly the keys the byte-by-byte order
/// puts below the bound, for bounds and keys on every side of eight bytes.
@Suite("The upper bound a scan checks every key against")
struct ScanUpperBoundTests {
    /// Bounds of 0 to 12 bytes: an entity's record range end (short), an index prefix's end
    /// (longer than eight), and ones with `0x00`/`0xFF` bytes where padding could mislead.
    static let bounds: [[UInt8]] = [
        [],
        [0x03],
        [0x02, 0x00],
        [0x02, 0x15, 0x49, 0x74, 0x65, 0x6D, 0x01],
        [0x02, 0x15, 0x49, 0x74, 0x65, 0x6D, 0x00, 0x00],
        [0x02, 0x15, 0x49, 0x74, 0x65, 0x6D, 0x00, 0xFF],
        [0x03, 0x15, 0x49, 0x74, 0x65, 0x6D, 0x2E, 0x61, 0x01],
        [0x03, 0x15, 0x49, 0x74, 0x65, 0x6D, 0x2E, 0x61, 0x00, 0x13, 0x80, 0x00],
        [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
    ]

    /// Keys around `bound`: it, its prefixes, it with one byte more or less at each position,
    /// and it extended to the lengths of record keys.
    static func keys(around bound: [UInt8]) -> [[UInt8]] {
        var keys: [[UInt8]] = [bound, [], [0x00], [0xFF], Array(repeating: 0x00, count: 16), Array(repeating: 0xFF, count: 16)]
        for length in 0..<bound.count { keys.append(Array(bound.prefix(length))) }
        for position in bound.indices {
            for delta in [-1, 1] {
                var key = bound
                let changed = Int(key[position]) + delta
                guard (0...255).contains(changed) else { continue }
                key[position] = UInt8(changed)
                keys.append(key)
                keys.append(key + [0x00, 0x13, 0x80, 0, 0, 0, 0, 0, 0, 0x2A])
            }
        }
        for extra in 1...10 {
            keys.append(bound + Array(repeating: 0x00, count: extra))
            keys.append(bound + Array(repeating: 0xFF, count: extra))
        }
        return keys
    }

    @Test(arguments: bounds)
    func admitsExactlyTheKeysBelowTheBound(bound: [UInt8]) {
        let upper = ScanUpperBound(bound)
        for key in Self.keys(around: bound) {
            let expected = bound.isEmpty || key.withUnsafeBufferPointer { k in
                bound.withUnsafeBufferPointer { b in BytewiseOrder.compare(k, b) < 0 }
            }
            key.withUnsafeBytes { buffer in
                #expect(upper.admits(buffer) == expected, "key \(key) against bound \(bound)")
            }
        }
    }

    @Test
    func noBoundAdmitsEveryKey() {
        let upper = ScanUpperBound([])
        for key in [[], [0x00], Array(repeating: 0xFF, count: 20)] as [[UInt8]] {
            key.withUnsafeBytes { #expect(upper.admits($0)) }
        }
    }
}
