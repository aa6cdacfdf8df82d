import Foundation
import CoreStoreKeyValue
import CoreStoreStorage

/// An `OrderedKeyValueStore` in a LevelDB database: a directory of sorted tables, a log and
/// a manifest, ordered by LevelDB's bytewise comparator.
///
/// ```swift
/// let engine = LevelDBEngine(directoryURL: URL(fileURLWithPath: "/var/lib/app/store.leveldb"))
/// try engine.open()
/// try engine.write { try $0.put([1, 2], [3]) }
/// let value = try engine.read { try $0.get([1, 2]) }
/// ```
///
/// ## Reads and writes
/// Each ``read(_:)`` takes a LevelDB snapshot and reads through options bound to it (with
/// checksum verification), so it sees one committed state; reads run on any thread,
/// concurrently with each other and with a write. Each ``write(_:)`` reads the same way and
/// collects its puts and deletes in a sorted in-memory overlay (`BufferedKeyValueWriter`) that
/// its own reads and scans see; when the body returns the overlay is applied as one
/// `leveldb_writebatch` (atomic), and when it throws it is dropped. The engine takes no write
/// lock: `leveldb_write` serializes batches itself, and the caller runs one write at a time
/// (`OrderedKeyValueStore` requirement 4), so no other write commits between a write's
/// snapshot and its batch. A write's overlay lives in memory until it commits.
///
/// ## Durability
/// ``Durability/full`` (the default) writes with `sync = true`: a returned write survives a
/// power loss. ``Durability/normal`` writes with `sync = false`: a returned write survives a
/// crash of the program, but the last writes may be lost on a crash of the machine.
///
/// ## Opening
/// The lifecycle (open, close, destroy, `notOpen` after close) is `DirectoryEngineShell`'s;
/// the engine adds the LevelDB calls and `LevelDBFileFormat`, the check of `CURRENT` and the
/// manifest. ``open()`` creates the database (`create_if_missing`) only when the directory is
/// missing, empty or holds only `LOCK`/`LOG`, and opens with `paranoid_checks`. A path that is a file, a directory with other
/// files and no `CURRENT`, or a `CURRENT`/manifest that is not LevelDB's throws
/// `StorageError/incompatibleStore(path:reason:)` before LevelDB touches it; damage LevelDB
/// itself reports (`Corruption`, a different comparator) throws the same. A database whose
/// `LOCK` is held, by another process or by another open engine in this process, throws
/// `.engine(code: 5)` saying that the store is in use. Before LevelDB opens an existing
/// database, the torn end a power cut can leave on its newest log and its manifest is cut off
/// (`LevelDBTornTails`), since `paranoid_checks` would refuse it.
public final class LevelDBEngine: OrderedKeyValueStore, @unchecked Sendable {
    /// How hard a commit works to be on disk before it returns.
    /// `.full`: writes with `sync = true`, so a returned write survives a power loss.
    /// `.normal`: `sync = false`, so a returned write survives a program crash, not a machine
    /// crash.
    public typealias Durability = CommitDurability

    /// How durable commits are.
    public let durability: Durability

    /// The capacity, in bytes, of the cache of decompressed table blocks that every read of the
    /// open database shares (LevelDB's `block_cache`); a negative size counts as zero, which
    /// caches no block. A read whose blocks are cached skips the file read, the checksum and the
    /// decompression; the cache fills as blocks are read, up to this size. (A block stored
    /// uncompressed is read in place from the mapped table file and takes no room here.)
    public let blockCacheSize: Int

    /// 16 MiB: the block cache unless the engine is given another size. LevelDB's own default
    /// is 8 MiB; twice that holds the records and index entries that repeated indexed fetches
    /// of a 100,000-record store visit, where 8 MiB let two concurrent readers evict each
    /// other's blocks (see the benchmark's W14).
    public static let defaultBlockCacheSize = 16 << 20

    /// `LevelDBEngine(<path>)`.
    public var storeDescription: String { shell.storeDescription }

    /// `true` with ``Durability/full``.
    public var isDurable: Bool { durability == .full }

    private let shell: DirectoryEngineShell<LevelDBDatabase>

    /// An engine for the database in `directoryURL`; nothing is touched before ``open()``.
    public init(directoryURL: URL, durability: Durability = .full, blockCacheSize: Int = LevelDBEngine.defaultBlockCacheSize) {
        shell = DirectoryEngineShell(directoryURL: directoryURL, engineName: "LevelDBEngine", format: LevelDBFileFormat())
        self.durability = durability
        self.blockCacheSize = blockCacheSize
    }

    /// The database directory.
    public var directoryURL: URL { shell.directoryURL }

    // MARK: OrderedKeyValueStore

    /// Opens (creating if needed) the database; does nothing when already open. See the type's
    /// documentation for what is checked.
    public func open() throws {
        try open(confirmingWith: {})
    }

    /// Opens the database, then runs `check`; when `check` throws, closes it and puts its files
    /// back as they were before this open (LevelDB's recovery rewrote some), unless another
    /// process opened it meanwhile.
    public func open(confirmingWith check: () throws -> Void) throws {
        try open(creatingWhenAbsent: true, confirmingWith: check)
    }

    /// ``open(confirmingWith:)`` only if the directory holds a database: an absent one throws
    /// `incompatibleStore` and nothing is created.
    public func openExisting(confirmingWith check: () throws -> Void) throws {
        try open(creatingWhenAbsent: false, confirmingWith: check)
    }

    private func open(creatingWhenAbsent: Bool, confirmingWith check: () throws -> Void) throws {
        var backup: LevelDBOpeningBackup?
        try shell.open(creatingWhenAbsent: creatingWhenAbsent) { creating in
            let database = try LevelDBDatabase(directoryURL: directoryURL, create: creating, sync: durability == .full, blockCacheSize: blockCacheSize)
            backup = database.openingBackup
            return database
        }
        do {
            try check()
        } catch {
            close()
            try backup?.restoreUnlessInUse()
            throw error
        }
        backup?.discard()
    }

    /// Runs `body` on a new snapshot. Throws `notOpen` when the engine is closed.
    public func read<T>(_ body: (any KeyValueReader) throws -> T) throws -> T {
        try shell.transaction { try $0.withSnapshot(body) }
    }

    /// Runs `body` over a snapshot plus its own pending writes, then applies them as one
    /// batch; applies nothing when `body` or LevelDB throws.
    public func write<T>(_ body: (any KeyValueWriter) throws -> T) throws -> T {
        try shell.transaction { database in
            try database.withSnapshot { snapshot in
                let writer = BufferedKeyValueWriter(base: snapshot, batches: { LevelDBWriteBatch() })
                let value = try body(writer)
                try database.apply(writer)
                return value
            }
        }
    }

    /// Deletes the first `limit` keys of the range straight from an iterator into one
    /// `leveldb_writebatch` (no read-your-writes buffer: nothing in the batch is read again).
    public func deleteFirstKeys(from lowerBound: [UInt8], to upperBound: [UInt8], limit: Int) throws -> (count: Int, last: [UInt8]?) {
        try shell.transaction { database in
            try database.deleteFirstKeys(from: lowerBound, to: upperBound, limit: limit)
        }
    }

    /// LevelDB's estimate of the memory the open database holds, in bytes: the cached blocks
    /// (at most about ``blockCacheSize``) plus the write buffers. Throws `notOpen` when closed.
    func approximateMemoryUsage() throws -> Int {
        try shell.transaction { try $0.approximateMemoryUsage() }
    }

    /// Waits for the reads and the write in progress, then closes the database and releases
    /// its `LOCK`. Later calls throw `notOpen` until ``open()``.
    public func close() {
        shell.close()
    }

    /// Closes the engine and deletes the database (`leveldb_destroy_db`: LevelDB's own files,
    /// then the directory when it is left empty). A directory that is not a LevelDB database
    /// throws `StorageError/incompatibleStore(path:reason:)` and is not touched.
    public func destroy() throws {
        try shell.destroy()
    }
}
