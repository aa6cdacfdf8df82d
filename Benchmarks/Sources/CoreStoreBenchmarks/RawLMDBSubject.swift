import BenchLMDB
import Foundation

/// The LMDB baseline: the workloads written directly against LMDB's C API, in the layout of
/// ``RawRowCodec`` (rows and the `age` index in the environment's unnamed database).
///
/// Opened as CoreStore's `LMDBEngine` opens for `CommitDurability.normal` (`MDB_NOTLS`,
/// `MDB_NOMETASYNC`), but with a fixed 4 GiB map that never needs to grow.
final class RawLMDBSubject: BenchmarkSubject {
    private let environment: OpaquePointer
    private let database: MDB_dbi

    /// The size of the memory map: far more than the full workload writes.
    static let mapSize = 4 << 30

    /// Opens a new environment in `directory/raw-lmdb/`, creating the folder.
    init(directory: URL) throws {
        let folder = directory.appendingPathComponent("raw-lmdb", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var created: OpaquePointer?
        try Self.check(mdb_env_create(&created), "mdb_env_create")
        guard let environment = created else { throw RawEngineError(message: "mdb_env_create returned no environment") }
        do {
            try Self.check(mdb_env_set_mapsize(environment, Self.mapSize), "mdb_env_set_mapsize")
            try Self.check(mdb_env_open(environment, folder.path, UInt32(MDB_NOTLS | MDB_NOMETASYNC), 0o644), "mdb_env_open")
            var transaction: OpaquePointer?
            try Self.check(mdb_txn_begin(environment, nil, 0, &transaction), "mdb_txn_begin")
            var database: MDB_dbi = 0
            let opened = mdb_dbi_open(transaction, nil, 0, &database)
            if opened != MDB_SUCCESS { mdb_txn_abort(transaction) }
            try Self.check(opened, "mdb_dbi_open")
            try Self.check(mdb_txn_commit(transaction), "mdb_txn_commit")
            self.environment = environment
            self.database = database
        } catch {
            mdb_env_close(environment)
            throw error
        }
    }

    deinit {
        mdb_env_close(environment)
    }

    // MARK: Workloads

    func insert(_ rows: [BenchRow]) throws {
        var buffers = RawRowBuffers()
        try write { transaction in
            for row in rows {
                try putRow(row, in: transaction, buffers: &buffers)
            }
        }
    }

    func fetchAll() throws -> Checksum {
        try read { transaction in
            var checksum = Checksum()
            try scan(from: [RawRowCodec.rowPrefix], in: transaction) { key, value in
                guard let id = try RawRowCodec.decodeRowKey(key) else { return false }
                checksum.add(try RawRowCodec.decodeRow(id: id, value: value))
                return true
            }
            return checksum
        }
    }

    func fetch(age: Int) throws -> Checksum {
        try read { transaction in
            var checksum = Checksum()
            var prefix: [UInt8] = []
            RawRowCodec.encodeAgePrefix(age: age, into: &prefix)
            var rowKey: [UInt8] = []
            try scan(from: prefix, in: transaction) { key, _ in
                guard let entry = try RawRowCodec.decodeAgeKey(key), entry.age == age else { return false }
                RawRowCodec.encodeRowKey(id: entry.id, into: &rowKey)
                guard let value = try get(rowKey, in: transaction) else {
                    throw RawEngineError(message: "corrupt raw store: no row \(entry.id) for its age index entry")
                }
                checksum.add(try RawRowCodec.decodeRow(id: entry.id, value: value))
                return true
            }
            return checksum
        }
    }

    func fetchTopScores(in range: ClosedRange<Double>, limit: Int) throws -> Checksum {
        try read { transaction in
            var top = RawTopRows(limit: limit)
            try scan(from: [RawRowCodec.rowPrefix], in: transaction) { key, value in
                guard let id = try RawRowCodec.decodeRowKey(key) else { return false }
                let score = try RawRowCodec.score(of: value)
                if range.contains(score), top.admits(score: score, id: id) {
                    top.offer(try RawRowCodec.decodeRow(id: id, value: value))
                }
                return true
            }
            return top.checksum
        }
    }

    func aggregate() throws -> Checksum {
        try read { transaction in
            var aggregation = RawAggregation()
            try scan(from: [RawRowCodec.rowPrefix], in: transaction) { key, value in
                guard try RawRowCodec.decodeRowKey(key) != nil else { return false }
                try aggregation.add(age: RawRowCodec.age(of: value), score: RawRowCodec.score(of: value))
                return true
            }
            return aggregation.checksum
        }
    }

    func countPerAgeAndHighestID() throws -> Checksum {
        try read { transaction in
            var counts = RawAgeCounts()
            try scan(from: [RawRowCodec.agePrefix], in: transaction) { key, _ in
                guard let entry = try RawRowCodec.decodeAgeKey(key) else { return false }
                counts.add(age: entry.age)
                return true
            }
            let highest = try lastKey(before: [RawRowCodec.agePrefix], in: transaction).flatMap { try RawRowCodec.decodeRowKey($0) }
            return countPerAgeChecksum(counts.groups, highestID: highest)
        }
    }

    func update(ids: Range<Int64>) throws {
        var buffers = RawRowBuffers()
        try write { transaction in
            for id in ids {
                RawRowCodec.encodeRowKey(id: id, into: &buffers.rowKey)
                guard let value = try get(buffers.rowKey, in: transaction) else { continue }
                var row = try RawRowCodec.decodeRow(id: id, value: value)
                RawRowCodec.encodeAgeKey(age: row.age, id: id, into: &buffers.ageKey)
                try delete(buffers.ageKey, in: transaction)
                row.score += 1
                row.age = (row.age + 1) % 100
                try putRow(row, in: transaction, buffers: &buffers)
            }
        }
    }

    func importUnique(_ rows: [BenchRow]) throws {
        var buffers = RawRowBuffers()
        try write { transaction in
            for row in rows {
                RawRowCodec.encodeRowKey(id: row.id, into: &buffers.rowKey)
                if let value = try get(buffers.rowKey, in: transaction) {
                    RawRowCodec.encodeAgeKey(age: try RawRowCodec.age(of: value), id: row.id, into: &buffers.ageKey)
                    try delete(buffers.ageKey, in: transaction)
                }
                try putRow(row, in: transaction, buffers: &buffers)
            }
        }
    }

    func delete(ids: Range<Int64>) throws {
        var buffers = RawRowBuffers()
        try write { transaction in
            for id in ids {
                RawRowCodec.encodeRowKey(id: id, into: &buffers.rowKey)
                guard let value = try get(buffers.rowKey, in: transaction) else { continue }
                RawRowCodec.encodeAgeKey(age: try RawRowCodec.age(of: value), id: id, into: &buffers.ageKey)
                try delete(buffers.ageKey, in: transaction)
                try delete(buffers.rowKey, in: transaction)
            }
        }
    }

    func monitoredUpdates(_ updates: [(id: Int64, score: Double)]) throws -> [Duration] {
        let clock = ContinuousClock()
        var buffers = RawRowBuffers()
        var durations: [Duration] = []
        durations.reserveCapacity(updates.count)
        for update in updates {
            let start = clock.now
            try write { transaction in
                RawRowCodec.encodeRowKey(id: update.id, into: &buffers.rowKey)
                guard let value = try get(buffers.rowKey, in: transaction) else {
                    throw RawEngineError(message: "no row \(update.id) to update")
                }
                var row = try RawRowCodec.decodeRow(id: update.id, value: value)
                row.score = update.score
                RawRowCodec.encodeValue(of: row, into: &buffers.value)
                try put(buffers.rowKey, buffers.value, in: transaction)
            }
            durations.append(clock.now - start)
        }
        return durations
    }

    func insertEach(_ rows: [BenchRow]) throws {
        var buffers = RawRowBuffers()
        for row in rows {
            try write { transaction in
                try putRow(row, in: transaction, buffers: &buffers)
            }
        }
    }

    // MARK: LMDB calls

    /// Runs `body` in a read-only transaction, aborted afterwards.
    private func read<T>(_ body: (OpaquePointer) throws -> T) throws -> T {
        var begun: OpaquePointer?
        try Self.check(mdb_txn_begin(environment, nil, UInt32(MDB_RDONLY), &begun), "mdb_txn_begin (read)")
        guard let transaction = begun else { throw RawEngineError(message: "mdb_txn_begin returned no transaction") }
        defer { mdb_txn_abort(transaction) }
        return try body(transaction)
    }

    /// Runs `body` in a write transaction and commits it; aborts it when `body` throws.
    private func write(_ body: (OpaquePointer) throws -> Void) throws {
        var begun: OpaquePointer?
        try Self.check(mdb_txn_begin(environment, nil, 0, &begun), "mdb_txn_begin (write)")
        guard let transaction = begun else { throw RawEngineError(message: "mdb_txn_begin returned no transaction") }
        do {
            try body(transaction)
        } catch {
            mdb_txn_abort(transaction)
            throw error
        }
        try Self.check(mdb_txn_commit(transaction), "mdb_txn_commit")
    }

    /// The value stored under `key`, or `nil`. The bytes are LMDB's: valid until `transaction`
    /// writes or ends.
    private func get(_ key: [UInt8], in transaction: OpaquePointer) throws -> UnsafeRawBufferPointer? {
        var value = MDB_val()
        let code = key.withUnsafeBytes { key in
            var keyValue = Self.val(key)
            return mdb_get(transaction, database, &keyValue, &value)
        }
        if code == MDB_NOTFOUND { return nil }
        try Self.check(code, "mdb_get")
        return Self.bytes(value)
    }

    /// Stores `value` under `key`, replacing any value.
    private func put(_ key: [UInt8], _ value: [UInt8], in transaction: OpaquePointer) throws {
        let code = key.withUnsafeBytes { key in
            value.withUnsafeBytes { value in
                var keyValue = Self.val(key)
                var dataValue = Self.val(value)
                return mdb_put(transaction, database, &keyValue, &dataValue, 0)
            }
        }
        try Self.check(code, "mdb_put")
    }

    /// Removes `key` and its value; nothing when it is absent.
    private func delete(_ key: [UInt8], in transaction: OpaquePointer) throws {
        let code = key.withUnsafeBytes { key in
            var keyValue = Self.val(key)
            return mdb_del(transaction, database, &keyValue, nil)
        }
        if code == MDB_NOTFOUND { return }
        try Self.check(code, "mdb_del")
    }

    /// Stores `row` and its `age` index entry.
    private func putRow(_ row: BenchRow, in transaction: OpaquePointer, buffers: inout RawRowBuffers) throws {
        buffers.encode(row)
        try put(buffers.rowKey, buffers.value, in: transaction)
        try put(buffers.ageKey, buffers.emptyValue, in: transaction)
    }

    /// Calls `body` with each key and value in key order from the first key at or after
    /// `start` (`MDB_SET_RANGE`, then `MDB_NEXT`), until `body` returns `false` or the keys end.
    private func scan(
        from start: [UInt8],
        in transaction: OpaquePointer,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        try withCursor(at: start, in: transaction) { cursor, key, value, code in
            while code == MDB_SUCCESS {
                guard try body(Self.bytes(key), Self.bytes(value)) else { return }
                code = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)
            }
            if code != MDB_NOTFOUND { try Self.check(code, "mdb_cursor_get") }
        }
    }

    /// The last key below `bound`, or `nil`: a cursor placed at `bound` (or at the end) and
    /// stepped back once.
    private func lastKey(before bound: [UInt8], in transaction: OpaquePointer) throws -> UnsafeRawBufferPointer? {
        try withCursor(at: bound, in: transaction) { cursor, key, value, code in
            code = mdb_cursor_get(cursor, &key, &value, code == MDB_SUCCESS ? MDB_PREV : MDB_LAST)
            if code == MDB_NOTFOUND { return nil }
            try Self.check(code, "mdb_cursor_get")
            return Self.bytes(key)
        }
    }

    /// Runs `body` with a cursor placed at the first key at or after `start` (`MDB_SET_RANGE`):
    /// the cursor, its key and value, and the placement's result code; closes the cursor after.
    private func withCursor<T>(
        at start: [UInt8], in transaction: OpaquePointer,
        _ body: (OpaquePointer, inout MDB_val, inout MDB_val, inout Int32) throws -> T
    ) throws -> T {
        var opened: OpaquePointer?
        try Self.check(mdb_cursor_open(transaction, database, &opened), "mdb_cursor_open")
        guard let cursor = opened else { throw RawEngineError(message: "mdb_cursor_open returned no cursor") }
        defer { mdb_cursor_close(cursor) }
        var key = MDB_val()
        var value = MDB_val()
        var code = start.withUnsafeBytes { start in
            key = Self.val(start)
            return mdb_cursor_get(cursor, &key, &value, MDB_SET_RANGE)
        }
        return try body(cursor, &key, &value, &code)
    }

    /// An `MDB_val` over `bytes`, which LMDB only reads.
    private static func val(_ bytes: UnsafeRawBufferPointer) -> MDB_val {
        MDB_val(mv_size: bytes.count, mv_data: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
    }

    /// The bytes an `MDB_val` from LMDB points to.
    private static func bytes(_ value: MDB_val) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)
    }

    /// Throws a ``RawEngineError`` naming `call` unless `code` is `MDB_SUCCESS`.
    private static func check(_ code: Int32, _ call: String) throws {
        guard code != MDB_SUCCESS else { return }
        throw RawEngineError(message: "\(call): \(String(cString: mdb_strerror(code)))")
    }
}
