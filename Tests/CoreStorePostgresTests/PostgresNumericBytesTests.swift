import Testing
@testable import CoreStorePostgres

/// A `numeric` read as a 64-bit integer straight from its binary form: well-formed whole
/// numbers read exactly, anything else (fractions, out-of-range digits, a length that does not
/// match the digit count, an unknown sign) reads as no integer. The server-backed tests in
/// `PostgresBinaryResultTests` check the same reads against what the server prints.
struct PostgresNumericBytesTests {
    /// The binary form: digit count, weight, sign, display scale, then base-10,000 digits.
    static func bytes(weight: Int16, sign: UInt16 = 0, scale: Int16 = 0, digits: [Int16], count: Int16? = nil) -> [UInt8] {
        var out: [UInt8] = []
        for field in [UInt16(bitPattern: count ?? Int16(digits.count)), UInt16(bitPattern: weight), sign, UInt16(bitPattern: scale)] + digits.map({ UInt16(bitPattern: $0) }) {
            out += [UInt8(field >> 8), UInt8(field & 0xFF)]
        }
        return out
    }

    static func int64(_ bytes: [UInt8]) -> Int64? {
        bytes.withUnsafeBytes { PostgresBinaryValue.Numeric.int64($0) }
    }

    @Test func wholeNumbersReadExactly() {
        #expect(Self.int64(Self.bytes(weight: 0, digits: [])) == 0)
        #expect(Self.int64(Self.bytes(weight: 0, digits: [42])) == 42)
        #expect(Self.int64(Self.bytes(weight: 1, sign: 0x4000, digits: [1])) == -10_000)
        #expect(Self.int64(Self.bytes(weight: 4, digits: [922, 3372, 368, 5477, 5807])) == .max)
        #expect(Self.int64(Self.bytes(weight: 4, sign: 0x4000, digits: [922, 3372, 368, 5477, 5808])) == .min)
    }

    @Test func othersReadAsNoInteger() {
        // One past each end of the 64-bit range.
        #expect(Self.int64(Self.bytes(weight: 4, digits: [922, 3372, 368, 5477, 5808])) == nil)
        #expect(Self.int64(Self.bytes(weight: 4, sign: 0x4000, digits: [922, 3372, 368, 5477, 5809])) == nil)
        // A fraction, a display scale, NaN.
        #expect(Self.int64(Self.bytes(weight: -1, digits: [5000])) == nil)
        #expect(Self.int64(Self.bytes(weight: 0, scale: 3, digits: [1])) == nil)
        #expect(Self.int64(Self.bytes(weight: 0, sign: 0xC000, digits: [])) == nil)
        // Damaged: a digit beyond base 10,000, a negative digit, an unknown sign, a count the
        // length does not match, too few bytes, a weight far beyond 64 bits.
        #expect(Self.int64(Self.bytes(weight: 0, digits: [10_000])) == nil)
        #expect(Self.int64(Self.bytes(weight: 0, digits: [-1])) == nil)
        #expect(Self.int64(Self.bytes(weight: 0, sign: 0x1234, digits: [1])) == nil)
        #expect(Self.int64(Self.bytes(weight: 0, digits: [1], count: 2)) == nil)
        #expect(Self.int64(Self.bytes(weight: 0, digits: [1], count: -1)) == nil)
        #expect(Self.int64([0, 1, 0]) == nil)
        #expect(Self.int64(Self.bytes(weight: 30_000, digits: [1])) == nil)
    }
}
