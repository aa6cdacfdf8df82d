import CLMDB
import CoreStoreKeyValue
import CoreStoreStorage

/// Reads through one LMDB transaction (read-only, or the write transaction of
/// ``LMDBEngine/write(_:)``). Valid only while that transaction is.
struct LMDBReader: KeyValueReader {
    let transaction: OpaquePointer
    let database: MDB_dbi
    /// `mdb_env_get_maxkeysize`: longer (and empty) keys cannot be stored.
    let maximumKeySize: Int

    func get(_ key: [UInt8]) throws -> [UInt8]? {
        guard !key.isEmpty, key.count <= maximumKeySize else { return nil }
        var value = MDB_val()
        let code = LMDBBytes.withValue(key) { mdbKey in mdb_get(transaction, database, &mdbKey, &value) }
        if code == MDB_NOTFOUND { return nil }
        try LMDBStatus.check(code, "mdb_get")
        return LMDBBytes.copy(value)
    }

    func scan(from lowerBound: [UInt8], to upperBound: [UInt8], reverse: Bool, _ visit: ([UInt8], [UInt8]) throws -> Bool) throws {
        var cursor: OpaquePointer?
        try LMDBStatus.check(mdb_cursor_open(transaction, database, &cursor), "mdb_cursor_open")
        defer { mdb_cursor_close(cursor) }
        var key = MDB_val()
        var value = MDB_val()
        let hasUpper = !upperBound.isEmpty
        var code: Int32
        if reverse {
            // Position at the first key >= upperBound and step back; keys past the end of the
            // database (or no upper bound) start from the last key.
            if hasUpper {
                code = seek(cursor, upperBound, &key, &value)
                if code == MDB_NOTFOUND { code = mdb_cursor_get(cursor, &key, &value, MDB_LAST) }
                while code == MDB_SUCCESS && LMDBBytes.compare(key, upperBound) >= 0 {
                    code = mdb_cursor_get(cursor, &key, &value, MDB_PREV)
                }
            } else {
                code = mdb_cursor_get(cursor, &key, &value, MDB_LAST)
            }
            while code == MDB_SUCCESS {
                guard LMDBBytes.compare(key, lowerBound) >= 0 else { return }
                guard try visit(LMDBBytes.copy(key), LMDBBytes.copy(value)) else { return }
                code = mdb_cursor_get(cursor, &key, &value, MDB_PREV)
            }
        } else {
            code = try forward(cursor, from: lowerBound, to: upperBound) { key, value in
                try visit(LMDBBytes.copy(key), LMDBBytes.copy(value))
            }
        }
        if code != MDB_NOTFOUND { try LMDBStatus.check(code, "mdb_cursor_get") }
    }

    /// Visits the values in ascending key order in place, in LMDB's map: nothing is copied.
    func scanValues(from lowerBound: [UInt8], to upperBound: [UInt8], _ visit: (UnsafeRawBufferPointer) throws -> Bool) throws {
        try walk(from: lowerBound, to: upperBound) { _, value in try visit(LMDBBytes.buffer(value)) }
    }

    /// Visits the keys in ascending order in place, in LMDB's map: nothing is copied.
    func scanKeys(from lowerBound: [UInt8], to upperBound: [UInt8], _ visit: (UnsafeRawBufferPointer) throws -> Bool) throws {
        try walk(from: lowerBound, to: upperBound) { key, _ in try visit(LMDBBytes.buffer(key)) }
    }

    /// Visits the pairs in ascending key order in place, in LMDB's map: nothing is copied.
    func scanPairs(from lowerBound: [UInt8], to upperBound: [UInt8], _ visit: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try walk(from: lowerBound, to: upperBound) { key, value in try visit(LMDBBytes.buffer(key), LMDBBytes.buffer(value)) }
    }

    /// Lends the value under `key` in place, in LMDB's map.
    func withValue(_ key: [UInt8], _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        guard !key.isEmpty, key.count <= maximumKeySize else { return false }
        var value = MDB_val()
        let code = LMDBBytes.withValue(key) { mdbKey in mdb_get(transaction, database, &mdbKey, &value) }
        if code == MDB_NOTFOUND { return false }
        try LMDBStatus.check(code, "mdb_get")
        try body(LMDBBytes.buffer(value))
        return true
    }

    /// An ascending walk of the pairs in place with a cursor of its own.
    private func walk(from lowerBound: [UInt8], to upperBound: [UInt8], _ visit: (MDB_val, MDB_val) throws -> Bool) throws {
        var cursor: OpaquePointer?
        try LMDBStatus.check(mdb_cursor_open(transaction, database, &cursor), "mdb_cursor_open")
        defer { mdb_cursor_close(cursor) }
        let code = try forward(cursor, from: lowerBound, to: upperBound, visit)
        if code != MDB_NOTFOUND { try LMDBStatus.check(code, "mdb_cursor_get") }
    }

    /// The ascending walk of ``scan(from:to:reverse:_:)`` over the pairs in place; returns the
    /// last cursor status (`MDB_NOTFOUND` at the end, `MDB_SUCCESS` when `visit` stopped or
    /// the upper bound was reached).
    private func forward(_ cursor: OpaquePointer?, from lowerBound: [UInt8], to upperBound: [UInt8],
                         _ visit: (MDB_val, MDB_val) throws -> Bool) throws -> Int32 {
        var key = MDB_val()
        var value = MDB_val()
        let bound = ScanUpperBound(upperBound)
        var code: Int32
        if lowerBound.isEmpty {
            code = mdb_cursor_get(cursor, &key, &value, MDB_FIRST)
        } else {
            code = seek(cursor, lowerBound, &key, &value)
            while code == MDB_SUCCESS && LMDBBytes.compare(key, lowerBound) < 0 {
                code = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)
            }
        }
        while code == MDB_SUCCESS {
            if !bound.admits(LMDBBytes.buffer(key)) { return code }
            guard try visit(key, value) else { return code }
            code = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)
        }
        return code
    }

    /// `MDB_SET_RANGE` to the first key >= `target`. A target longer than the maximum key size
    /// is cut to it: no stored key lies between the cut target and the target, so the caller's
    /// bound checks finish the positioning.
    private func seek(_ cursor: OpaquePointer?, _ target: [UInt8], _ key: inout MDB_val, _ value: inout MDB_val) -> Int32 {
        let probe = target.count > maximumKeySize ? Array(target.prefix(maximumKeySize)) : target
        return LMDBBytes.withValue(probe) { mdbKey in
            key = mdbKey
            return mdb_cursor_get(cursor, &key, &value, MDB_SET_RANGE)
        }
    }
}

/// Reads and writes through the write transaction of one ``LMDBEngine/write(_:)``.
///
/// Records whether LMDB reported `MDB_MAP_FULL`, so that the engine grows the map and retries
/// even when the body caught the error.
final class LMDBWriter: KeyValueWriter {
    // One write transaction uses a writer, on one thread, and no method re-enters another, so
    // accesses never overlap: the runtime exclusivity checks (one per put) are switched off.
    private let reader: LMDBReader
    @exclusivity(unchecked) private(set) var mapFull = false
    /// The cursor every put and delete goes through, opened by the first (``cursor()``) and
    /// closed by ``finish()``. A cursor that stays where its last write left it lets LMDB skip
    /// the descent from the root when the next key belongs on the same leaf page (or past the
    /// last key of the database), which is what a commit's puts mostly are: records with new
    /// keys in ascending order, and the entries of one index.
    @exclusivity(unchecked) private var putCursor: OpaquePointer?

    init(transaction: OpaquePointer, database: MDB_dbi, maximumKeySize: Int) {
        reader = LMDBReader(transaction: transaction, database: database, maximumKeySize: maximumKeySize)
    }

    /// `true`: puts go through one cursor that stays on the page of the last one.
    var prefersPutsInKeyOrder: Bool { true }

    /// The put cursor, opened on first use.
    @inline(__always)
    private func cursor() throws -> OpaquePointer? {
        if putCursor == nil {
            try LMDBStatus.check(mdb_cursor_open(reader.transaction, reader.database, &putCursor), "mdb_cursor_open")
        }
        return putCursor
    }

    /// Closes the put cursor: called before the transaction commits or aborts (LMDB frees a
    /// write transaction's cursors when it ends).
    func finish() {
        if let putCursor { mdb_cursor_close(putCursor) }
        putCursor = nil
    }

    func get(_ key: [UInt8]) throws -> [UInt8]? {
        try reader.get(key)
    }

    func scan(from lowerBound: [UInt8], to upperBound: [UInt8], reverse: Bool, _ visit: ([UInt8], [UInt8]) throws -> Bool) throws {
        try reader.scan(from: lowerBound, to: upperBound, reverse: reverse, visit)
    }

    /// The transaction's in-place values-only scan.
    func scanValues(from lowerBound: [UInt8], to upperBound: [UInt8], _ visit: (UnsafeRawBufferPointer) throws -> Bool) throws {
        try reader.scanValues(from: lowerBound, to: upperBound, visit)
    }

    /// The transaction's in-place keys-only scan.
    func scanKeys(from lowerBound: [UInt8], to upperBound: [UInt8], _ visit: (UnsafeRawBufferPointer) throws -> Bool) throws {
        try reader.scanKeys(from: lowerBound, to: upperBound, visit)
    }

    /// The transaction's in-place scan of keys and values.
    func scanPairs(from lowerBound: [UInt8], to upperBound: [UInt8], _ visit: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try reader.scanPairs(from: lowerBound, to: upperBound, visit)
    }

    /// The transaction's in-place lookup.
    func withValue(_ key: [UInt8], _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        try reader.withValue(key, body)
    }

    /// Throws `.engine(code: MDB_BAD_VALSIZE)` for an empty key or one longer than the
    /// environment's maximum key size (511 bytes by default).
    func put(_ key: [UInt8], _ value: [UInt8]) throws {
        try key.withUnsafeBytes { key in try value.withUnsafeBytes { try put(keyBytes: key, valueBytes: $0) } }
    }

    /// ``put(_:_:)`` from the bytes in place: LMDB copies them into the page.
    func put(keyBytes key: UnsafeRawBufferPointer, valueBytes value: UnsafeRawBufferPointer) throws {
        let cursor = try cursor()
        let code = LMDBBytes.withValue(key) { mdbKey in
            LMDBBytes.withValue(value) { mdbValue in
                mdb_cursor_put(cursor, &mdbKey, &mdbValue, 0)
            }
        }
        if code == MDB_MAP_FULL { mapFull = true }
        try LMDBStatus.check(code, "mdb_put")
    }

    /// Finds `key` with the put cursor (which skips the descent from the root when the key is
    /// on the page of the last put or delete) and deletes it there.
    func delete(_ key: [UInt8]) throws {
        guard !key.isEmpty, key.count <= reader.maximumKeySize else { return }
        let cursor = try cursor()
        var value = MDB_val()
        var code = LMDBBytes.withValue(key) { mdbKey in
            mdb_cursor_get(cursor, &mdbKey, &value, MDB_SET)
        }
        if code == MDB_NOTFOUND { return }
        try LMDBStatus.check(code, "mdb_cursor_get")
        code = mdb_cursor_del(cursor, 0)
        if code == MDB_MAP_FULL { mapFull = true }
        try LMDBStatus.check(code, "mdb_del")
    }
}
