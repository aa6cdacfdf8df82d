import Foundation
import CLevelDB
import CoreStoreKeyValue
import CoreStoreStorage

/// An ``OrderedKeyValueStore`` in a LevelDB database: a directory of sorted tables, a log and
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
/// `leveldb_writebatch` (atomic), and when it throws it is dropped. Writes are serialized. A
/// write's overlay lives in memory until it commits.
///
/// ## Durability
/// ``Durability/full`` (the default) writes with `sync = true`: a returned write survives a
/// power loss. ``Durability/normal`` writes with `sync = false`: a returned write survives a
/// crash of the program, but the last writes may be lost on a crash of the machine.
///
/// ## Opening
/// ``open()`` creates the database (`create_if_missing`) only when the directory is missing
/// or empty, and opens with `paranoid_checks`. A path that is a file, a directory with other
/// files and no `CURRENT`, or a `CURRENT`/manifest that is not LevelDB's throws
/// ``StorageError/incompatibleStore(path:reason:)`` before LevelDB touches it; damage LevelDB
/// itself reports (`Corruption`, a different comparator) throws the same. A database whose
/// `LOCK` is held, by another process or by another open engine in this process, throws
/// `.engine(code: 5)` saying that the store is in use.
public final class LevelDBEngine: OrderedKeyValueStore, @unchecked Sendable {
    /// How hard a commit works to be on disk before it returns.
    /// `.full`: writes with `sync = true`, so a returned write survives a power loss.
    /// `.normal`: `sync = false`, so a returned write survives a program crash, not a machine
    /// crash.
    public typealias Durability = CommitDurability

    /// The database directory.
    public let directoryURL: URL
    /// How durable commits are.
    public let durability: Durability

    /// `LevelDBEngine(<path>)`.
    public var storeDescription: String { "LevelDBEngine(\(directoryURL.path))" }

    /// `true` with ``Durability/full``.
    public var isDurable: Bool { durability == .full }

    /// Serializes open, close, destroy and writes.
    private let lifecycleLock = NSLock()
    private let stateLock = NSLock()
    private var database: LevelDBDatabase?

    /// An engine for the database in `directoryURL`; nothing is touched before ``open()``.
    public init(directoryURL: URL, durability: Durability = .full) {
        self.directoryURL = directoryURL.standardizedFileURL
        self.durability = durability
    }

    deinit {
        database?.close()
    }

    // MARK: OrderedKeyValueStore

    /// Opens (creating if needed) the database; does nothing when already open. See the type's
    /// documentation for what is checked.
    public func open() throws {
        lifecycleLock.lock()
        defer { lifecycleLock.unlock() }
        guard stateLock.withLock({ database }) == nil else { return }
        let path = directoryURL.path
        let create = try LevelDBDirectoryCheck.inspect(directoryURL) == .absent
        if create {
            do {
                try FileManager.default.createDirectory(at: directoryURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            } catch {
                throw StorageError.engine(code: LevelDBStatus.Code.ioError.rawValue, message: "cannot create the directory for \(path): \(error.localizedDescription)")
            }
        }
        let options = leveldb_options_create()
        defer { leveldb_options_destroy(options) }
        leveldb_options_set_create_if_missing(options, create ? 1 : 0)
        leveldb_options_set_paranoid_checks(options, 1)
        let (handle, message) = LevelDBStatus.capture { leveldb_open(options, path, $0) }
        if let message { throw explain(message, context: "leveldb_open \(path)") }
        guard let handle else {
            throw StorageError.engine(code: 0, message: "leveldb_open \(path) returned no database")
        }
        let opened = LevelDBDatabase(handle: handle, sync: durability == .full, storeDescription: storeDescription)
        stateLock.withLock { database = opened }
    }

    /// Runs `body` on a new snapshot. Throws `notOpen` when the engine is closed.
    public func read<T>(_ body: (any KeyValueReader) throws -> T) throws -> T {
        try openDatabase().withSnapshot { try body($0) }
    }

    /// Runs `body` over a snapshot plus its own pending writes, then applies them as one
    /// batch; applies nothing when `body` or LevelDB throws.
    /// REQUIRES: not called from inside a write's body (writes are serialized; it would wait
    /// for itself).
    public func write<T>(_ body: (any KeyValueWriter) throws -> T) throws -> T {
        lifecycleLock.lock()
        defer { lifecycleLock.unlock() }
        let database = try openDatabase()
        return try database.withSnapshot { snapshot in
            let writer = BufferedKeyValueWriter(base: snapshot)
            let value = try body(writer)
            guard writer.hasPendingOperations else { return value }
            let batch = leveldb_writebatch_create()
            defer { leveldb_writebatch_destroy(batch) }
            writer.forEachOperation { key, value in
                if let value {
                    key.withUnsafeBufferPointer { key in
                        key.withMemoryRebound(to: CChar.self) { key in
                            value.withUnsafeBufferPointer { value in
                                value.withMemoryRebound(to: CChar.self) { value in
                                    leveldb_writebatch_put(batch, key.baseAddress, key.count, value.baseAddress, value.count)
                                }
                            }
                        }
                    }
                } else {
                    key.withUnsafeBufferPointer { key in
                        key.withMemoryRebound(to: CChar.self) { leveldb_writebatch_delete(batch, $0.baseAddress, $0.count) }
                    }
                }
            }
            try LevelDBStatus.call("leveldb_write") { leveldb_write(database.handle, database.writeOptions, batch, $0) }
            return value
        }
    }

    /// Waits for the reads and the write in progress, then closes the database and releases
    /// its `LOCK`. Later calls throw `notOpen` until ``open()``.
    public func close() {
        lifecycleLock.lock()
        defer { lifecycleLock.unlock() }
        closeDatabase()
    }

    /// Closes the engine and deletes the database (`leveldb_destroy_db`: LevelDB's own files,
    /// then the directory when it is left empty). A directory that is not a LevelDB database
    /// throws ``StorageError/incompatibleStore(path:reason:)`` and is not touched.
    public func destroy() throws {
        lifecycleLock.lock()
        defer { lifecycleLock.unlock() }
        closeDatabase()
        let path = directoryURL.path
        guard FileManager.default.fileExists(atPath: path) else { return }
        _ = try LevelDBDirectoryCheck.inspect(directoryURL)
        let options = leveldb_options_create()
        defer { leveldb_options_destroy(options) }
        let (_, message) = LevelDBStatus.capture { leveldb_destroy_db(options, path, $0) }
        if let message { throw explain(message, context: "leveldb_destroy_db \(path)") }
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: path), entries.isEmpty {
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    // MARK: Private

    private func openDatabase() throws -> LevelDBDatabase {
        guard let database = stateLock.withLock({ database }) else {
            throw StorageError.notOpen(store: storeDescription)
        }
        return database
    }

    private func closeDatabase() {
        let old = stateLock.withLock { () -> LevelDBDatabase? in
            defer { database = nil }
            return database
        }
        old?.close()
    }

    /// Names the cases a caller can act on: a held `LOCK` (LevelDB says `IO error: lock …`),
    /// and a database LevelDB finds damaged or made with another comparator.
    private func explain(_ message: String, context: String) -> StorageError {
        let path = directoryURL.path
        switch LevelDBStatus.code(of: message) {
        case .ioError where message.hasPrefix("IO error: lock "):
            return .engine(code: LevelDBStatus.Code.ioError.rawValue, message: "the LevelDB database \(path) is in use by another process or open handle (LevelDB: \(message))")
        case .corruption, .invalidArgument:
            return .incompatibleStore(path: path, reason: "LevelDB reports: \(message)")
        default:
            return LevelDBStatus.error(message, context)
        }
    }
}
