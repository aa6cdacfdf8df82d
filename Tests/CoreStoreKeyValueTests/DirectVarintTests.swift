import Testing
@testable import CoreStoreKeyValue

/// The direct varint reader (``ByteReader/varint(_:_:end:)``): its short path for values of up
/// to three bytes and its loop agree with the writer, at every length boundary, and neither
/// reads past the end.
@Suite("Varints read with direct loads")
struct DirectVarintTests {
    /// Values on both sides of each seven-bit step, up to the largest.
    static let values: [UInt64] = [
        0, 1, 127, 128, 129, 16_383, 16_384, 16_385, 2_097_151, 2_097_152, 2_097_153,
        268_435_455, 268_435_456, 1 << 35, 1 << 56, 1 << 62, UInt64.max - 1, UInt64.max,
    ]

    @Test(arguments: values)
    func aWrittenVarintReadsBackWithAnyBytesAfterIt(value: UInt64) {
        var writer = ByteWriter()
        writer.varint(value)
        let length = writer.bytes.count
        // Nothing after it, and bytes after it (the short path needs three bytes to look at).
        for trailing in [[], [0x7F], [0xFF, 0xFF, 0xFF]] as [[UInt8]] {
            let bytes = writer.bytes + trailing
            bytes.withUnsafeBytes { buffer in
                var p = 0
                #expect(ByteReader.varint(buffer.baseAddress!, &p, end: buffer.count) == value)
                #expect(p == length)
            }
        }
    }

    @Test(arguments: values.filter { $0 >= 128 })
    func aVarintCutShortIsRefused(value: UInt64) {
        var writer = ByteWriter()
        writer.varint(value)
        for cut in 1..<writer.bytes.count {
            // The bytes after the cut exist in memory but lie past `end`.
            writer.bytes.withUnsafeBytes { buffer in
                var p = 0
                #expect(ByteReader.varint(buffer.baseAddress!, &p, end: cut) == nil, "\(value) cut at \(cut)")
                #expect(p == 0)
            }
        }
    }

    @Test func aVarintStartingInsideTheBytesReadsFromThere() {
        let bytes: [UInt8] = [0xFF, 0x80, 0x01, 0x05]
        bytes.withUnsafeBytes { buffer in
            var p = 1
            #expect(ByteReader.varint(buffer.baseAddress!, &p, end: buffer.count) == 128)
            #expect(p == 3)
            #expect(ByteReader.varint(buffer.baseAddress!, &p, end: buffer.count) == 5)
            #expect(p == 4)
        }
    }
}
