import CCRC32C

/// CRC-32C (Castagnoli), computed with the processor's CRC instruction where it has one: the
/// checksum of every stored record (see ``RecordCodec``), and the one LevelDB writes in its logs.
package enum CRC32C {
    /// The CRC-32C of `bytes`.
    @inline(__always)
    package static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        corestore_crc32c(bytes.baseAddress, bytes.count)
    }

    /// The CRC-32C of `bytes`.
    package static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }
}
