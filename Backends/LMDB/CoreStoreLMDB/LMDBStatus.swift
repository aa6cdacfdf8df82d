import Foundation
import CLMDB
import CoreStoreStorage

/// Turns LMDB return codes into ``StorageError``s. Every non-zero code becomes
/// `.engine(code:message:)` with `mdb_strerror`'s text, prefixed by what was being done.
enum LMDBStatus {
    /// Throws unless `code` is `MDB_SUCCESS`.
    static func check(_ code: Int32, _ context: @autoclosure () -> String) throws {
        guard code != MDB_SUCCESS else { return }
        throw error(code, context())
    }

    /// The error for a non-zero `code`.
    static func error(_ code: Int32, _ context: String) -> StorageError {
        let message = mdb_strerror(code).map { String(cString: $0) } ?? "unknown LMDB error"
        return .engine(code: Int(code), message: "\(context): \(message)")
    }
}

/// Byte-string helpers shared by the reader and the writer.
enum LMDBBytes {
    /// Runs `body` with an `MDB_val` pointing at `bytes`; the pointer is valid only inside `body`.
    static func withValue<R>(_ bytes: [UInt8], _ body: (inout MDB_val) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes { try withValue($0, body) }
    }

    /// Runs `body` with an `MDB_val` pointing at the bytes of `buffer`. An empty buffer gets a
    /// non-null pointer, since LMDB may `memcpy` from it.
    static func withValue<R>(_ buffer: UnsafeRawBufferPointer, _ body: (inout MDB_val) throws -> R) rethrows -> R {
        guard let start = buffer.baseAddress, buffer.count > 0 else {
            var placeholder: UInt8 = 0
            return try withUnsafeMutablePointer(to: &placeholder) { pointer in
                var value = MDB_val(mv_size: 0, mv_data: UnsafeMutableRawPointer(pointer))
                return try body(&value)
            }
        }
        var value = MDB_val(mv_size: buffer.count, mv_data: UnsafeMutableRawPointer(mutating: start))
        return try body(&value)
    }

    /// A copy of the bytes `value` points at (memory owned by LMDB, valid until the next
    /// operation on the transaction).
    static func copy(_ value: MDB_val) -> [UInt8] {
        guard value.mv_size > 0, let data = value.mv_data else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: value.mv_size))
    }

    /// The bytes `value` points at, in place (memory owned by LMDB, valid until the next
    /// operation on the transaction).
    static func buffer(_ value: MDB_val) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: value.mv_size > 0 ? value.mv_data : nil, count: value.mv_size)
    }

    /// `memcmp` order, shorter first on a tie: the order LMDB's default comparator uses.
    static func compare(_ value: MDB_val, _ bytes: [UInt8]) -> Int {
        let lhs = UnsafeRawBufferPointer(start: value.mv_size > 0 ? value.mv_data : nil, count: value.mv_size)
        return bytes.withUnsafeBytes { rhs in
            let common = min(lhs.count, rhs.count)
            if common > 0, let l = lhs.baseAddress, let r = rhs.baseAddress {
                let result = memcmp(l, r, common)
                if result != 0 { return result < 0 ? -1 : 1 }
            }
            return lhs.count == rhs.count ? 0 : (lhs.count < rhs.count ? -1 : 1)
        }
    }
}
