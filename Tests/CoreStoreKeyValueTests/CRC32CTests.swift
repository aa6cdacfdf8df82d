import Testing
import CCRC32C
@testable import CoreStoreKeyValue

/// The record checksum: the standard CRC-32C, the same from the processor's instruction and
/// from the table, at every length and alignment.
@Suite("CRC32C: the standard checksum, instruction and table alike")
struct CRC32CTests {
    @Test("Known values of CRC-32C", arguments: [
        ("", 0x0000_0000), ("a", 0xC1D0_4330), ("123456789", 0xE306_9283),
        ("The quick brown fox jumps over the lazy dog", 0x2262_0404),
    ] as [(String, UInt32)])
    func knownValues(_ text: String, _ expected: UInt32) {
        let bytes = Array(text.utf8)
        #expect(CRC32C.checksum(bytes[...]) == expected)
        #expect(bytes.withUnsafeBytes { corestore_crc32c_table($0.baseAddress, $0.count) } == expected)
    }

    @Test("The instruction and the table agree at every length up to 300 and every alignment")
    func instructionMatchesTable() {
        var g = SeededGenerator(seed: 32)
        let bytes = (0..<320).map { _ in UInt8.random(in: 0...255, using: &g) }
        bytes.withUnsafeBytes { buffer in
            for start in 0..<8 {
                for length in 0...300 {
                    let slice = UnsafeRawBufferPointer(rebasing: buffer[start..<(start + length)])
                    #expect(CRC32C.checksum(slice) == corestore_crc32c_table(slice.baseAddress, slice.count), "start \(start), length \(length)")
                }
            }
        }
    }

    /// Buffers of 8 to 2,047 bytes take a path of their own on x86-64 (`crc32c_hardware_whole`);
    /// these lengths lie on both sides of its end.
    @Test("The instruction and the table agree on both sides of the whole-buffer path's longest length",
          arguments: [2_040, 2_046, 2_047, 2_048, 2_049, 2_055, 2_056, 4_096, 10_001])
    func instructionMatchesTableForLongBuffers(length: Int) {
        var g = SeededGenerator(seed: UInt64(length))
        let bytes = (0..<(length + 8)).map { _ in UInt8.random(in: 0...255, using: &g) }
        bytes.withUnsafeBytes { buffer in
            for start in [0, 3, 8] {
                let slice = UnsafeRawBufferPointer(rebasing: buffer[start..<(start + length)])
                #expect(CRC32C.checksum(slice) == corestore_crc32c_table(slice.baseAddress, slice.count), "start \(start)")
            }
        }
    }
}
