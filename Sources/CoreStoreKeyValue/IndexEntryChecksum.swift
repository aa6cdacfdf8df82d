import CoreStoreStorage

/// What an index entry's value holds (see ``KeyValueLayout``): the CRC-32C of the entry's key,
/// 4 bytes little-endian, so that an entry whose key changed on disk — and would point a fetch
/// at another record, or order it elsewhere — is refused instead of followed. Entries written
/// by earlier releases (store format 1) have an empty value and are read unchecked.
enum IndexEntryChecksum {
    /// Calls `body` with the value to store with the index entry `entry`, lent in place.
    @inline(__always)
    static func withValue<R>(for entry: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let checksum = CRC32C.checksum(entry).littleEndian
        return try withUnsafeBytes(of: checksum) { try body($0) }
    }

    /// Throws when `value` is neither empty (an entry of format 1) nor the checksum of `entry`.
    @inline(__always)
    static func check(entry: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws {
        if value.isEmpty { return }
        guard value.count == 4, UInt32(littleEndian: value.loadUnaligned(as: UInt32.self)) == CRC32C.checksum(entry) else {
            throw KeyValueFormatError.damaged("index entry", "its checksum does not match its \(entry.count)-byte key")
        }
    }

    /// Throws when `value` is neither empty nor the checksum of `entry`.
    static func check(entry: [UInt8], value: [UInt8]) throws {
        try entry.withUnsafeBytes { entry in try value.withUnsafeBytes { try check(entry: entry, value: $0) } }
    }
}
