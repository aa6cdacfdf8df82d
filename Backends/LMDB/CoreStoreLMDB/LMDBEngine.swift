import Foundation
import CLMDB
import CoreStoreKeyValue
import CoreStoreStorage

/// An `OrderedKeyValueStore` in an LMDB environment: a directory holding `data.mdb` (a
/// memory-mapped B+tree) and `lock.mdb` (the reader table).
///
/// ```swift
/// let engine = LMDBEngine(directoryURL: URL(fileURLWithPath: "/var/lib/app/store.lmdb"))
/// try engine.open()
/// try engine.write { try $0.put([1, 2], [3]) }
/// let value = try engine.read { try $0.get([1, 2]) }
/// ```
///
/// ## Transactions
/// Each ``read(_:)`` runs in its own read-only transaction (`MDB_RDONLY`): a snapshot that never
/// blocks and is never blocked by the writer. The environment is opened with `MDB_NOTLS`, so
/// reads run on any thread, concurrently. Each ``write(_:)`` runs in one write transaction,
/// committed when the body returns and aborted when it throws. LMDB serializes write
/// transactions itself (one writer per environment, within the process and across processes),
/// so the engine takes no write lock of its own.
///
/// ## Keys
/// Keys are 1 to 511 bytes (`mdb_env_get_maxkeysize`); `put` of another length throws
/// `.engine(code: MDB_BAD_VALSIZE)`. `get` and `delete` of such a key find nothing.
///
/// ## Map size
/// LMDB maps the data file into a fixed address range. The map starts at `initialMapSize`
/// (or the size recorded in the file, when larger). When a write finds it full
/// (`MDB_MAP_FULL`), the engine aborts the transaction, waits until no read is in progress,
/// doubles the map (`mdb_env_set_mapsize`) and runs the write body again from the start; it
/// repeats until the write fits or the map would exceed `maximumMapSize` (16 GiB by default),
/// and then throws `.engine(code: MDB_MAP_FULL)` with nothing written. Hence a write body may
/// run more than once and must not have effects outside the writer that cannot be repeated;
/// and a read must not wait for a write to finish (the write may be waiting for it).
///
/// ## Durability
/// ``Durability/full`` (the default) flushes data and meta pages on every commit: a returned
/// write survives a power loss. ``Durability/normal`` opens with `MDB_NOMETASYNC`: a returned
/// write survives a crash of the program; a crash of the machine may undo the last commit, but
/// never damages the environment.
///
/// ## Opening
/// The lifecycle (open, close, destroy, `notOpen` after close) is `DirectoryEngineShell`'s;
/// the engine adds the LMDB calls and `LMDBFileFormat`, the check of `data.mdb`.
/// ``open()`` creates the directory and environment when the directory is missing or empty.
/// A path that is a file, a directory with other files and no `data.mdb`, or a `data.mdb`
/// that does not start with an LMDB meta page throws `StorageError/incompatibleStore(path:reason:)`
/// before anything is written. Reader slots left by crashed processes are cleared
/// (`mdb_reader_check`). LMDB forbids opening one environment twice in a process: a second
/// engine on the same directory throws until the first is closed.
///
/// liblmdb trusts the pages of `data.mdb`: a damaged page can crash the process on the first
/// read that reaches it. With `verifiesOnOpen`, ``open()`` first reads every page the
/// environment uses and checks its structure and key order (`LMDBVerifier`), and refuses a
/// damaged one with `StorageError/incompatibleStore(path:reason:)`, at the cost of reading the
/// whole file once.
public final class LMDBEngine: OrderedKeyValueStore, @unchecked Sendable {
    /// How hard a commit works to be on disk before it returns.
    /// `.full`: data and meta pages are flushed on commit, so a returned write survives a power
    /// loss. `.normal`: `MDB_NOMETASYNC`, so a returned write survives a program crash and a
    /// machine crash may undo the last commit (never corrupting the file).
    public typealias Durability = CommitDurability

    /// How durable commits are.
    public let durability: Durability
    /// The map size a new (or smaller) environment starts with, in bytes.
    public let initialMapSize: Int
    /// The largest map the engine grows to, in bytes; a write that needs more throws.
    public let maximumMapSize: Int
    /// Whether ``open()`` verifies every page of an existing environment before LMDB maps it.
    public let verifiesOnOpen: Bool

    /// 64 MiB.
    public static let defaultInitialMapSize = 64 << 20
    /// 16 GiB.
    public static let defaultMaximumMapSize = 16 << 30

    /// `LMDBEngine(<path>)`.
    public var storeDescription: String { shell.storeDescription }

    /// `true` with ``Durability/full``.
    public var isDurable: Bool { durability == .full }

    private let shell: DirectoryEngineShell<LMDBEnvironment>

    /// An engine for the environment in `directoryURL`; nothing is touched before ``open()``.
    /// Map sizes are rounded up to a multiple of 64 KiB. `verifiesOnOpen`: see the type's
    /// documentation.
    public init(
        directoryURL: URL, durability: Durability = .full, initialMapSize: Int = LMDBEngine.defaultInitialMapSize,
        maximumMapSize: Int = LMDBEngine.defaultMaximumMapSize, verifiesOnOpen: Bool = false
    ) {
        self.verifiesOnOpen = verifiesOnOpen
        shell = DirectoryEngineShell(directoryURL: directoryURL, engineName: "LMDBEngine", format: LMDBFileFormat())
        self.durability = durability
        let granule = 64 << 10
        let initial = max(granule, (initialMapSize + granule - 1) / granule * granule)
        self.initialMapSize = initial
        self.maximumMapSize = max(initial, (maximumMapSize + granule - 1) / granule * granule)
    }

    /// The environment directory.
    public var directoryURL: URL { shell.directoryURL }

    /// The current size of the map, in bytes; `nil` when the engine is not open.
    public var mapSize: Int? {
        try? shell.transaction { $0.mapSize }
    }

    // MARK: OrderedKeyValueStore

    /// Opens (creating if needed) the environment; does nothing when already open. See the
    /// type's documentation for what is checked.
    public func open() throws {
        try open(creatingWhenAbsent: true)
    }

    /// Opens the environment only if the directory holds one, then runs `check`; closes it when
    /// `check` throws. An absent store throws `incompatibleStore` and nothing is created.
    public func openExisting(confirmingWith check: () throws -> Void) throws {
        try openThenConfirm({ try open(creatingWhenAbsent: false) }, with: check)
    }

    private func open(creatingWhenAbsent: Bool) throws {
        var flags = UInt32(MDB_NOTLS)
        if durability == .normal { flags |= UInt32(MDB_NOMETASYNC) }
        try shell.open(creatingWhenAbsent: creatingWhenAbsent) { creating in
            if creating {
                // Before LMDB writes `lock.mdb`: see `LMDBFileFormat`.
                let data = directoryURL.appendingPathComponent("data.mdb").path
                do {
                    _ = try PrivateFiles.createFile(atPath: data)
                } catch {
                    throw StorageError.engine(code: Int(EIO), message: "cannot create \(data): \(error.localizedDescription)")
                }
            }
            if verifiesOnOpen && !creating { try LMDBVerifier.verify(directory: directoryURL) }
            return try LMDBEnvironment(directoryURL: directoryURL, flags: flags, mapSize: initialMapSize)
        }
    }

    /// Runs `body` in one read-only transaction. Throws `notOpen` when the engine is closed.
    public func read<T>(_ body: (any KeyValueReader) throws -> T) throws -> T {
        while true {
            let outcome: TransactionOutcome<T> = try shell.transaction { environment in
                var transaction: OpaquePointer?
                let code = mdb_txn_begin(environment.handle, nil, UInt32(MDB_RDONLY), &transaction)
                if code == MDB_MAP_RESIZED { return .mapResized }
                try LMDBStatus.check(code, "mdb_txn_begin (read)")
                guard let transaction else { throw LMDBStatus.error(EINVAL, "mdb_txn_begin (read)") }
                defer { mdb_txn_abort(transaction) }
                return .finished(try body(environment.reader(transaction)))
            }
            switch outcome {
            case .finished(let value): return value
            case .mapResized, .mapFull: try shell.exclusive { try $0.adoptMapSizeOfOtherProcess() }
            }
        }
    }

    /// Runs `body` in one write transaction: committed when it returns, aborted when it or the
    /// commit throws. `body` runs again after the map grows (see the type's documentation).
    /// REQUIRES: not called from inside a read's or a write's body (a second write transaction
    /// waits for the first, and a map resize waits for every transaction to end).
    public func write<T>(_ body: (any KeyValueWriter) throws -> T) throws -> T {
        while true {
            let outcome: TransactionOutcome<T> = try shell.transaction { environment in
                var transaction: OpaquePointer?
                let code = mdb_txn_begin(environment.handle, nil, 0, &transaction)
                if code == MDB_MAP_RESIZED { return .mapResized }
                try LMDBStatus.check(code, "mdb_txn_begin (write)")
                guard let transaction else { throw LMDBStatus.error(EINVAL, "mdb_txn_begin (write)") }
                let writer = environment.writer(transaction)
                let value: T
                do {
                    value = try body(writer)
                    writer.finish()
                } catch {
                    writer.finish()
                    mdb_txn_abort(transaction)
                    if writer.mapFull { return .mapFull }
                    throw error
                }
                if writer.mapFull {
                    mdb_txn_abort(transaction)
                    return .mapFull
                }
                let commit = mdb_txn_commit(transaction)
                if commit == MDB_MAP_FULL { return .mapFull }
                try LMDBStatus.check(commit, "mdb_txn_commit")
                return .finished(value)
            }
            switch outcome {
            case .finished(let value): return value
            case .mapFull: try shell.exclusive { try $0.growMap(maximum: maximumMapSize) }
            case .mapResized: try shell.exclusive { try $0.adoptMapSizeOfOtherProcess() }
            }
        }
    }

    /// Waits for the transactions in progress, then closes the environment. Later calls throw
    /// `notOpen` until ``open()``.
    public func close() {
        shell.close()
    }

    /// Closes the engine and deletes `data.mdb` and `lock.mdb`, then the directory when it is
    /// left empty. A directory that is not an LMDB environment throws
    /// `StorageError/incompatibleStore(path:reason:)` and is not touched.
    public func destroy() throws {
        try shell.destroy()
    }

    // MARK: Private

    private enum TransactionOutcome<T> {
        case finished(T)
        case mapFull
        case mapResized
    }
}
