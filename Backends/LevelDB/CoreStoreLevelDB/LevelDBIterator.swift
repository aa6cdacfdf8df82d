import CLevelDB
import Foundation
import CoreStoreStorage

/// A `leveldb_iterator_t` over one read's snapshot, destroyed with the object. Used by one
/// thread at a time, inside the read that created it.
final class LevelDBIterator {
    private let handle: OpaquePointer

    init(database: OpaquePointer, options: OpaquePointer) {
        handle = leveldb_create_iterator(database, options)
    }

    deinit {
        leveldb_iter_destroy(handle)
    }

    var isValid: Bool { leveldb_iter_valid(handle) != 0 }

    /// A copy of the current key. REQUIRES: ``isValid``.
    var key: [UInt8] { Array(keyInPlace) }

    /// A copy of the current value. REQUIRES: ``isValid``.
    var value: [UInt8] { Array(valueInPlace) }

    /// The current key in LevelDB's memory, valid until the iterator moves. REQUIRES: ``isValid``.
    var keyInPlace: UnsafeRawBufferPointer {
        var length = 0
        guard let bytes = leveldb_iter_key(handle, &length), length > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: bytes, count: length)
    }

    /// The current value in LevelDB's memory, valid until the iterator moves. REQUIRES: ``isValid``.
    var valueInPlace: UnsafeRawBufferPointer {
        var length = 0
        guard let bytes = leveldb_iter_value(handle, &length), length > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: bytes, count: length)
    }

    /// The current key compared with `bytes` in key order (negative, zero, positive), read in
    /// place with `memcmp`: a scan checks its bound on every entry, and copying the key and
    /// comparing it with the generic `lexicographicallyPrecedes` cost more than the read.
    /// REQUIRES: ``isValid``.
    func compareKey(with bytes: [UInt8]) -> Int {
        var length = 0
        let key = leveldb_iter_key(handle, &length)
        return bytes.withUnsafeBytes { other in
            let common = min(length, other.count)
            if common > 0, let key, let base = other.baseAddress {
                let result = memcmp(key, base, common)
                if result != 0 { return result < 0 ? -1 : 1 }
            }
            return length == other.count ? 0 : (length < other.count ? -1 : 1)
        }
    }

    /// Adds a deletion of the current key to `batch`, without copying the key.
    /// REQUIRES: ``isValid``.
    func deleteKey(into batch: OpaquePointer?) {
        var length = 0
        let key = leveldb_iter_key(handle, &length)
        leveldb_writebatch_delete(batch, key, length)
    }

    func seekToFirst() { leveldb_iter_seek_to_first(handle) }
    func seekToLast() { leveldb_iter_seek_to_last(handle) }
    func next() { leveldb_iter_next(handle) }
    func previous() { leveldb_iter_prev(handle) }

    /// Positions at the first key `>= target`.
    func seek(_ target: [UInt8]) {
        target.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { leveldb_iter_seek(handle, $0.baseAddress, $0.count) }
        }
    }

    /// Throws the error that ended the iteration early, if any (an invalid iterator is either
    /// at the end or failed).
    func checkError() throws {
        try LevelDBStatus.call("leveldb_iter") { leveldb_iter_get_error(handle, $0) }
    }
}
