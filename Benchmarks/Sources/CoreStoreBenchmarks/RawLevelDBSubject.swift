import BenchLevelDB
import CoreStoreLevelDB
import Foundation

/// The LevelDB baseline: the workloads written directly against LevelDB's C API, in the layout
/// of ``RawRowCodec``.
///
/// Opened and used as CoreStore's `LevelDBEngine` does for `CommitDurability.normal`:
/// `create_if_missing`, `paranoid_checks`, a block cache of the engine's default size, reads
/// that verify checksums, writes with `sync = false`, one `leveldb_writebatch_t` per
/// transaction.
final class RawLevelDBSubject: BenchmarkSubject {
    private let database: OpaquePointer
    private let blockCache: OpaquePointer
    private let readOptions: OpaquePointer
    private let writeOptions: OpaquePointer

    /// Creates a new database in `directory/raw-leveldb/`.
    init(directory: URL) throws {
        let folder = directory.appendingPathComponent("raw-leveldb", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let options = leveldb_options_create()
        defer { leveldb_options_destroy(options) }
        leveldb_options_set_create_if_missing(options, 1)
        leveldb_options_set_paranoid_checks(options, 1)
        guard let cache = leveldb_cache_create_lru(LevelDBEngine.defaultBlockCacheSize) else {
            throw RawEngineError(message: "leveldb_cache_create_lru failed")
        }
        leveldb_options_set_cache(options, cache)
        let opened: OpaquePointer?
        do {
            opened = try Self.call("leveldb_open") { leveldb_open(options, folder.path, $0) }
        } catch {
            leveldb_cache_destroy(cache)
            throw error
        }
        guard let opened else {
            leveldb_cache_destroy(cache)
            throw RawEngineError(message: "leveldb_open returned no database")
        }
        blockCache = cache
        database = opened
        readOptions = leveldb_readoptions_create()
        leveldb_readoptions_set_verify_checksums(readOptions, 1)
        writeOptions = leveldb_writeoptions_create()
        leveldb_writeoptions_set_sync(writeOptions, 0)
    }

    deinit {
        leveldb_close(database)
        leveldb_cache_destroy(blockCache)
        leveldb_readoptions_destroy(readOptions)
        leveldb_writeoptions_destroy(writeOptions)
    }

    // MARK: Workloads

    func insert(_ rows: [BenchRow]) throws {
        var buffers = RawRowBuffers()
        try write { batch in
            for row in rows {
                Self.putRow(row, in: batch, buffers: &buffers)
            }
        }
    }

    func fetchAll() throws -> Checksum {
        var checksum = Checksum()
        try scan(from: [RawRowCodec.rowPrefix]) { key, value in
            guard let id = try RawRowCodec.decodeRowKey(key) else { return false }
            checksum.add(try RawRowCodec.decodeRow(id: id, value: value))
            return true
        }
        return checksum
    }

    func fetch(age: Int) throws -> Checksum {
        var checksum = Checksum()
        var prefix: [UInt8] = []
        RawRowCodec.encodeAgePrefix(age: age, into: &prefix)
        var rowKey: [UInt8] = []
        try scan(from: prefix) { key, _ in
            guard let entry = try RawRowCodec.decodeAgeKey(key), entry.age == age else { return false }
            RawRowCodec.encodeRowKey(id: entry.id, into: &rowKey)
            let row = try get(rowKey) { value in
                guard let value else {
                    throw RawEngineError(message: "corrupt raw store: no row \(entry.id) for its age index entry")
                }
                return try RawRowCodec.decodeRow(id: entry.id, value: value)
            }
            checksum.add(row)
            return true
        }
        return checksum
    }

    func fetchTopScores(in range: ClosedRange<Double>, limit: Int) throws -> Checksum {
        var top = RawTopRows(limit: limit)
        try scan(from: [RawRowCodec.rowPrefix]) { key, value in
            guard let id = try RawRowCodec.decodeRowKey(key) else { return false }
            let score = try RawRowCodec.score(of: value)
            if range.contains(score), top.admits(score: score, id: id) {
                top.offer(try RawRowCodec.decodeRow(id: id, value: value))
            }
            return true
        }
        return top.checksum
    }

    func countPerAgeAndHighestID() throws -> Checksum {
        var counts = RawAgeCounts()
        try scan(from: [RawRowCodec.agePrefix]) { key, _ in
            guard let entry = try RawRowCodec.decodeAgeKey(key) else { return false }
            counts.add(age: entry.age)
            return true
        }
        return countPerAgeChecksum(counts.groups, highestID: try lastRowID())
    }

    func aggregate() throws -> Checksum {
        var aggregation = RawAggregation()
        try scan(from: [RawRowCodec.rowPrefix]) { key, value in
            guard try RawRowCodec.decodeRowKey(key) != nil else { return false }
            try aggregation.add(age: RawRowCodec.age(of: value), score: RawRowCodec.score(of: value))
            return true
        }
        return aggregation.checksum
    }

    func importUnique(_ rows: [BenchRow]) throws {
        var buffers = RawRowBuffers()
        try write { batch in
            for row in rows {
                RawRowCodec.encodeRowKey(id: row.id, into: &buffers.rowKey)
                let storedAge = try get(buffers.rowKey) { value in try value.map { try RawRowCodec.age(of: $0) } }
                if let storedAge {
                    RawRowCodec.encodeAgeKey(age: storedAge, id: row.id, into: &buffers.ageKey)
                    Self.delete(buffers.ageKey, in: batch)
                }
                Self.putRow(row, in: batch, buffers: &buffers)
            }
        }
    }

    func update(ids: Range<Int64>) throws {
        var buffers = RawRowBuffers()
        try write { batch in
            for id in ids {
                RawRowCodec.encodeRowKey(id: id, into: &buffers.rowKey)
                let stored = try get(buffers.rowKey) { value in
                    try value.map { try RawRowCodec.decodeRow(id: id, value: $0) }
                }
                guard var row = stored else { continue }
                RawRowCodec.encodeAgeKey(age: row.age, id: id, into: &buffers.ageKey)
                Self.delete(buffers.ageKey, in: batch)
                row.score += 1
                row.age = (row.age + 1) % 100
                Self.putRow(row, in: batch, buffers: &buffers)
            }
        }
    }

    func delete(ids: Range<Int64>) throws {
        var buffers = RawRowBuffers()
        try write { batch in
            for id in ids {
                RawRowCodec.encodeRowKey(id: id, into: &buffers.rowKey)
                let age = try get(buffers.rowKey) { value in
                    try value.map { try RawRowCodec.age(of: $0) }
                }
                guard let age else { continue }
                RawRowCodec.encodeAgeKey(age: age, id: id, into: &buffers.ageKey)
                Self.delete(buffers.ageKey, in: batch)
                Self.delete(buffers.rowKey, in: batch)
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
            try write { batch in
                RawRowCodec.encodeRowKey(id: update.id, into: &buffers.rowKey)
                var row = try get(buffers.rowKey) { value in
                    guard let value else { throw RawEngineError(message: "no row \(update.id) to update") }
                    return try RawRowCodec.decodeRow(id: update.id, value: value)
                }
                row.score = update.score
                RawRowCodec.encodeValue(of: row, into: &buffers.value)
                Self.put(buffers.rowKey, buffers.value, in: batch)
            }
            durations.append(clock.now - start)
        }
        return durations
    }

    func insertEach(_ rows: [BenchRow]) throws {
        var buffers = RawRowBuffers()
        for row in rows {
            try write { batch in
                Self.putRow(row, in: batch, buffers: &buffers)
            }
        }
    }

    // MARK: LevelDB calls

    /// Fills a new write batch with `body` and applies it with one `leveldb_write`; applies
    /// nothing when `body` throws.
    private func write(_ body: (OpaquePointer) throws -> Void) throws {
        guard let batch = leveldb_writebatch_create() else {
            throw RawEngineError(message: "leveldb_writebatch_create returned no batch")
        }
        defer { leveldb_writebatch_destroy(batch) }
        try body(batch)
        try Self.call("leveldb_write") { leveldb_write(database, writeOptions, batch, $0) }
    }

    /// Calls `body` with the value stored under `key` (or `nil`), then frees LevelDB's copy.
    private func get<T>(_ key: [UInt8], _ body: (UnsafeRawBufferPointer?) throws -> T) throws -> T {
        var size = 0
        let value = try Self.withChars(key) { key, keySize in
            try Self.call("leveldb_get") { leveldb_get(database, readOptions, key, keySize, &size, $0) }
        }
        guard let value else { return try body(nil) }
        defer { leveldb_free(value) }
        return try body(UnsafeRawBufferPointer(start: value, count: size))
    }

    /// Calls `body` with each key and value in key order from the first key at or after
    /// `start`, until `body` returns `false` or the keys end; throws the iterator's error.
    private func scan(from start: [UInt8], _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        let iterator = leveldb_create_iterator(database, readOptions)
        defer { leveldb_iter_destroy(iterator) }
        Self.withChars(start) { leveldb_iter_seek(iterator, $0, $1) }
        while leveldb_iter_valid(iterator) != 0 {
            var keySize = 0
            var valueSize = 0
            let key = UnsafeRawBufferPointer(start: leveldb_iter_key(iterator, &keySize), count: keySize)
            let value = UnsafeRawBufferPointer(start: leveldb_iter_value(iterator, &valueSize), count: valueSize)
            guard try body(key, value) else { return }
            leveldb_iter_next(iterator)
        }
        try Self.call("leveldb_iter_get_error") { leveldb_iter_get_error(iterator, $0) }
    }

    /// The id of the last row: an iterator placed at the `age` index (or at the end) and
    /// stepped back once; `nil` when there is no row.
    private func lastRowID() throws -> Int64? {
        let iterator = leveldb_create_iterator(database, readOptions)
        defer { leveldb_iter_destroy(iterator) }
        Self.withChars([RawRowCodec.agePrefix]) { leveldb_iter_seek(iterator, $0, $1) }
        if leveldb_iter_valid(iterator) != 0 { leveldb_iter_prev(iterator) } else { leveldb_iter_seek_to_last(iterator) }
        var id: Int64?
        if leveldb_iter_valid(iterator) != 0 {
            var keySize = 0
            id = try RawRowCodec.decodeRowKey(UnsafeRawBufferPointer(start: leveldb_iter_key(iterator, &keySize), count: keySize))
        }
        try Self.call("leveldb_iter_get_error") { leveldb_iter_get_error(iterator, $0) }
        return id
    }

    /// Adds to `batch` the storing of `value` under `key`.
    private static func put(_ key: [UInt8], _ value: [UInt8], in batch: OpaquePointer) {
        withChars(key) { key, keySize in
            withChars(value) { value, valueSize in
                leveldb_writebatch_put(batch, key, keySize, value, valueSize)
            }
        }
    }

    /// Adds to `batch` the removal of `key`.
    private static func delete(_ key: [UInt8], in batch: OpaquePointer) {
        withChars(key) { leveldb_writebatch_delete(batch, $0, $1) }
    }

    /// Adds to `batch` the storing of `row` and of its `age` index entry.
    private static func putRow(_ row: BenchRow, in batch: OpaquePointer, buffers: inout RawRowBuffers) {
        buffers.encode(row)
        put(buffers.rowKey, buffers.value, in: batch)
        put(buffers.ageKey, buffers.emptyValue, in: batch)
    }

    /// Calls `body` with `bytes` as the `const char*` and length LevelDB takes.
    private static func withChars<T>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>?, Int) throws -> T) rethrows -> T {
        try bytes.withUnsafeBufferPointer { bytes in
            try bytes.withMemoryRebound(to: CChar.self) { try body($0.baseAddress, $0.count) }
        }
    }

    /// Runs `body` with an `errptr` for a LevelDB call; throws what LevelDB put there (freeing
    /// it) as a ``RawEngineError`` naming `function`.
    @discardableResult
    private static func call<T>(_ function: String, _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> T) throws -> T {
        var error: UnsafeMutablePointer<CChar>?
        let result = body(&error)
        if let error {
            defer { leveldb_free(error) }
            throw RawEngineError(message: "\(function): \(String(cString: error))")
        }
        return result
    }
}
