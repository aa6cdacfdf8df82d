import Foundation
import CLevelDB
import CoreStoreKeyValue
import CoreStoreStorage

/// One open `leveldb_t`, the connection ``LevelDBEngine``'s `DirectoryEngineShell` keeps:
/// reads and writes use it inside `shell.transaction`, and the shell calls ``close()`` once,
/// after all of them, since LevelDB requires every iterator and snapshot to be released before
/// `leveldb_close`.
final class LevelDBDatabase: KeyValueEngineConnection, @unchecked Sendable {
    let handle: OpaquePointer
    /// Write options with `sync` set as the engine's durability asks.
    let writeOptions: OpaquePointer
    /// The LRU cache of decompressed table blocks this database reads through; destroyed after
    /// the database closes (LevelDB keeps a pointer to it while open).
    private let blockCache: OpaquePointer

    /// Opens the database in `directoryURL` (which must exist and have passed
    /// ``LevelDBFileFormat``'s check) with `paranoid_checks`, creating it when `create`.
    /// `sync` is the write option every write uses; `blockCacheSize` is the capacity, in bytes,
    /// of the cache of decompressed blocks its reads share (see `LevelDBEngine.blockCacheSize`).
    ///
    /// An existing database is opened under the protection of ``LevelDBOpeningBackup``, after
    /// the torn ends a power cut leaves are cut off (``LevelDBTornTails``), both while this
    /// process holds the database's lock: a database LevelDB refuses is left exactly as it was.
    init(directoryURL: URL, create: Bool, sync: Bool, blockCacheSize: Int) throws {
        let registered = directoryURL.resolvingSymlinksInPath().path
        guard OpenStorePaths.shared.insert(registered) else {
            throw StorageError.engine(
                code: LevelDBStatus.Code.ioError.rawValue,
                message: "the LevelDB database \(directoryURL.path) is in use by another process or open handle (another LevelDBEngine in this process)"
            )
        }
        guard let cache = leveldb_cache_create_lru(max(blockCacheSize, 0)) else {
            OpenStorePaths.shared.remove(registered)
            throw StorageError.engine(code: 0, message: "leveldb_cache_create_lru failed for a block cache of \(blockCacheSize) bytes")
        }
        do {
            if create {
                handle = try Self.open(directoryURL, create: true, blockCache: cache, backup: nil)
                openingBackup = nil
            } else {
                (handle, openingBackup) = try Self.openExisting(directoryURL, sync: sync, blockCache: cache)
            }
        } catch {
            leveldb_cache_destroy(cache)
            OpenStorePaths.shared.remove(registered)
            throw error
        }
        blockCache = cache
        registeredPath = registered
        writeOptions = leveldb_writeoptions_create()
        leveldb_writeoptions_set_sync(writeOptions, sync ? 1 : 0)
    }

    private let registeredPath: String
    /// The links to the files as they were before this open, kept until the engine's caller
    /// confirms the open (`LevelDBEngine.open(confirmingWith:)`); `nil` for a new database.
    let openingBackup: LevelDBOpeningBackup?

    /// Links the files, repairs torn ends under the lock, then opens; puts the files back when
    /// either fails, and otherwise returns the links with the handle.
    private static func openExisting(_ directoryURL: URL, sync: Bool, blockCache: OpaquePointer) throws -> (OpaquePointer, LevelDBOpeningBackup) {
        guard let lock = try LevelDBProcessLock(directory: directoryURL) else {
            throw StorageError.engine(
                code: LevelDBStatus.Code.ioError.rawValue,
                message: "the LevelDB database \(directoryURL.path) is in use by another process or open handle (its LOCK is held)"
            )
        }
        let backup: LevelDBOpeningBackup
        do {
            backup = try LevelDBOpeningBackup(database: directoryURL)
        } catch {
            lock.release()
            throw error
        }
        do {
            try LevelDBTornTails.repair(in: directoryURL, logWritesAreSynced: sync)
        } catch {
            defer { lock.release() }
            try backup.restore()
            throw error
        }
        lock.release()
        return (try open(directoryURL, create: false, blockCache: blockCache, backup: backup), backup)
    }

    /// The Bloom filter (10 bits per key) every table written from now on carries, so that a
    /// lookup of a key a table does not hold skips its data blocks: the check that an insert's
    /// key is free costs a few filter probes instead of a block read per level. Tables written
    /// without one stay readable, and so do tables with one when opened without it. One policy
    /// for the process, never destroyed: an open database keeps a pointer to it.
    private nonisolated(unsafe) static let bloomFilter = leveldb_filterpolicy_create_bloom(10)

    /// `leveldb_open` with `paranoid_checks`, the Bloom filter and `blockCache`. When it fails for another reason than the lock
    /// and no other process took the lock meanwhile, `backup` puts the files back; when it
    /// succeeds, the caller keeps `backup` until the open is confirmed.
    private static func open(_ directoryURL: URL, create: Bool, blockCache: OpaquePointer, backup: LevelDBOpeningBackup?) throws -> OpaquePointer {
        let path = directoryURL.path
        let options = leveldb_options_create()
        defer { leveldb_options_destroy(options) }
        leveldb_options_set_create_if_missing(options, create ? 1 : 0)
        leveldb_options_set_paranoid_checks(options, 1)
        leveldb_options_set_filter_policy(options, bloomFilter)
        leveldb_options_set_cache(options, blockCache)
        let (handle, message) = LevelDBStatus.capture { leveldb_open(options, path, $0) }
        if let message {
            if let backup {
                if message.hasPrefix("IO error: lock ") { backup.discard() } else { try backup.restoreUnlessInUse() }
            }
            throw LevelDBStatus.explain(message, path: path, context: "leveldb_open \(path)")
        }
        guard let handle else {
            try backup?.restoreUnlessInUse()
            throw StorageError.engine(code: 0, message: "leveldb_open \(path) returned no database")
        }
        return handle
    }

    /// Runs `body` with read options bound to a new snapshot; releases both afterwards.
    func withSnapshot<T>(_ body: (LevelDBSnapshotReader) throws -> T) throws -> T {
        let snapshot = leveldb_create_snapshot(handle)
        let options = leveldb_readoptions_create()
        leveldb_readoptions_set_verify_checksums(options, 1)
        leveldb_readoptions_set_snapshot(options, snapshot)
        defer {
            leveldb_readoptions_destroy(options)
            leveldb_release_snapshot(handle, snapshot)
        }
        guard let options else { throw StorageError.engine(code: 0, message: "leveldb_readoptions_create failed") }
        return try body(LevelDBSnapshotReader(database: handle, options: options))
    }

    /// Applies the writes of `writer`, which filled ``LevelDBWriteBatch``es, as one atomic
    /// `leveldb_write` (nothing when there are none): the batches after the first are appended
    /// to it whole.
    func apply(_ writer: BufferedKeyValueWriter) throws {
        var batches: [LevelDBWriteBatch] = []
        for batch in writer.writeBatches {
            guard let batch = batch as? LevelDBWriteBatch else {
                throw StorageError.engine(code: 0, message: "a LevelDB write was handed a batch of another engine (\(type(of: batch)))")
            }
            batches.append(batch)
        }
        guard let first = batches.first else { return }
        for batch in batches.dropFirst() { leveldb_writebatch_append(first.handle, batch.handle) }
        try LevelDBStatus.call("leveldb_write") { leveldb_write(handle, writeOptions, first.handle, $0) }
    }

    /// Deletes the first `limit` keys with `lowerBound <= key < upperBound` (empty: no bound) in
    /// one `leveldb_writebatch`; returns how many and the last one.
    func deleteFirstKeys(from lowerBound: [UInt8], to upperBound: [UInt8], limit: Int) throws -> (count: Int, last: [UInt8]?) {
        guard let options = leveldb_readoptions_create() else {
            throw StorageError.engine(code: 0, message: "leveldb_readoptions_create failed")
        }
        defer { leveldb_readoptions_destroy(options) }
        leveldb_readoptions_set_fill_cache(options, 0)
        let batch = leveldb_writebatch_create()
        defer { leveldb_writebatch_destroy(batch) }
        var count = 0
        var last: [UInt8]?
        do {
            let iterator = LevelDBIterator(database: handle, options: options)
            let bound = ScanUpperBound(upperBound)
            iterator.seek(lowerBound)
            while count < limit, iterator.isValid, bound.admits(iterator.keyInPlace) {
                iterator.deleteKey(into: batch)
                count += 1
                if count == limit { last = iterator.key }
                iterator.next()
            }
            try iterator.checkError()
        }
        if count > 0 {
            try LevelDBStatus.call("leveldb_write") { leveldb_write(handle, writeOptions, batch, $0) }
        }
        return (count, last)
    }

    /// LevelDB's estimate of the memory the open database holds, in bytes: the blocks in its
    /// cache plus its write buffers (the `leveldb.approximate-memory-usage` property).
    func approximateMemoryUsage() throws -> Int {
        guard let text = leveldb_property_value(handle, "leveldb.approximate-memory-usage") else {
            throw StorageError.engine(code: 0, message: "LevelDB does not report leveldb.approximate-memory-usage")
        }
        defer { leveldb_free(text) }
        let value = String(cString: text)
        guard let bytes = Int(value) else {
            throw StorageError.engine(code: 0, message: "LevelDB reported leveldb.approximate-memory-usage as '\(value)', not a number of bytes")
        }
        return bytes
    }

    /// Closes the database and releases its `LOCK`.
    /// REQUIRES: no snapshot or iterator is alive; called once.
    func close() {
        leveldb_close(handle)
        leveldb_cache_destroy(blockCache)
        leveldb_writeoptions_destroy(writeOptions)
        OpenStorePaths.shared.remove(registeredPath)
    }
}
