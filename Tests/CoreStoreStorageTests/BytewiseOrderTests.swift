import Testing
@testable import CoreStoreStorage

/// `BytewiseOrder` against the generic lexicographic order of unsigned bytes: random strings
/// with long shared prefixes, and strings that differ at every position of their common prefix.
@Suite("Bytewise order")
struct BytewiseOrderTests {
    /// The reference: element by element, a prefix first.
    private func expected(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a == b ? 0 : (a.lexicographicallyPrecedes(b) ? -1 : 1)
    }

    private func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in BytewiseOrder.compare(x, y) } }
    }

    @Test("Random strings of every length up to 53 bytes", arguments: [1, 7, 42] as [UInt64])
    func random(seed: UInt64) {
        var numbers = FixedSeedNumbers(seed: seed)
        let longest = 44
        for _ in 0..<4_000 {
            // A shared prefix, then each side's own bytes: many pairs differ late or not at all.
            let prefix = (0..<numbers.next(longest)).map { _ in UInt8(numbers.next(256)) }
            let a = prefix + (0..<numbers.next(10)).map { _ in UInt8(numbers.next(3) * 127) }
            let b = prefix + (0..<numbers.next(10)).map { _ in UInt8(numbers.next(3) * 127) }
            #expect(compare(a, b) == expected(a, b), "\(a) vs \(b)")
            #expect(compare(b, a) == -expected(a, b), "\(b) vs \(a)")
        }
    }

    @Test("One differing byte at every position, high and low bytes, every length up to 40")
    func everyPosition() {
        for length in 1...40 {
            let base = (0..<length).map { UInt8(($0 * 37) % 251) }
            for position in 0..<length {
                for replacement: UInt8 in [0, 0x7F, 0x80, 0xFF] where replacement != base[position] {
                    var other = base
                    other[position] = replacement
                    #expect(compare(base, other) == expected(base, other), "length \(length), position \(position)")
                    #expect(compare(other, base) == expected(other, base), "length \(length), position \(position)")
                }
            }
            #expect(compare(base, base) == 0)
            #expect(compare(Array(base.dropLast()), base) == -1, "a prefix sorts first")
            #expect(compare(base, Array(base.dropLast())) == 1)
        }
        #expect(compare([], []) == 0 && compare([], [0]) == -1 && compare([0], []) == 1)
    }
}
