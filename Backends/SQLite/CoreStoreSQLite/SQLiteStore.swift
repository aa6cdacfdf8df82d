import Foundation
import CoreStoreSQL
import CSQLite
import CoreStoreStorage

/// A store in a SQLite database file: durable, concurrent readers, and the whole query
/// language translated to SQL.
///
/// ```swift
/// try dataStack.addStorageAndWait(SQLiteStore())                                  // default file
/// try dataStack.addStorageAndWait(SQLiteStore(fileName: "Cache.sqlite", localStorageOptions: .recreateStoreOnModelMismatch))
/// try dataStack.addStorageAndWait(SQLiteStore(fileURL: URL(fileURLWithPath: "/var/lib/app/app.sqlite")))
/// ```
///
/// ## Files and location
/// Without a URL the store lives in ``defaultDirectory``: `$XDG_DATA_HOME/<process name>/`, or
/// `~/.local/share/<process name>/` when `XDG_DATA_HOME` is not set, in a file named
/// `<process name>.sqlite`. SQLite keeps two side files next to it (`-wal`, `-shm`), and the store
/// a third, `-counters`, with the next record key and the commit sequence (see
/// ``sideFileSuffixes``).
///
/// ## Concurrency and durability
/// The database runs in WAL mode by default: one writer (the `DataStack`'s transactions) and up
/// to four readers at once, each on its own snapshot, never blocking the writer
/// (`journalMode: .rollback` uses the classic journal instead, where a commit waits for reads). Another process that
/// holds a lock is waited for up to five seconds. With `Durability/full` (the default) a
/// commit is on disk before it returns, even across a power loss; `Durability/normal` is
/// faster and survives a crash of the program but may lose the last commits on a power loss.
///
/// ## Memory
/// Each connection keeps the pages it read in its own cache of ``pageCacheSize`` bytes
/// (``defaultPageCacheSize``, 8 MiB, unless given): about four times SQLite's built-in
/// 2,000 KiB, so that a scan of a table up to that size reads its pages from the cache on the
/// next scan instead of asking the operating system for each again. (In WAL mode a connection
/// drops its whole cache when it starts a read after another connection's commit, so the cache
/// helps most where reads outnumber commits.) A connection only fills its cache as it reads, so
/// a small database never costs more than its own size per connection; a large one costs up to
/// `pageCacheSize` for each of the up to five connections (one writer, four readers).
///
/// ## Opening
/// An existing file is first checked read-only: a file that is not a SQLite database, a
/// damaged or truncated database, or a SQLite database not made by CoreStore throws
/// `StorageError.incompatibleStore` and is never modified. A store of another model is not
/// touched either (the `DataStack` reports a schema mismatch, or erases it when the options
/// contain `.recreateStoreOnModelMismatch`).
///
/// ## Sharing a file
/// The store is `SharedAccessStorage`: the same file may be added to several `DataStack`s at
/// once, in this process or in others. Their commits are serialized by SQLite, and each stack
/// notices the others' (see `DataStack`'s documentation on shared stores). A migration or an
/// erase needs the file to itself within this process.
///
/// ## Migration
/// The store is `MigratableStorage`: a migration step runs in one SQLite transaction, so the
/// file keeps the old model version until the step commits, whatever happens before. A
/// lightweight step that changes only attributes, indexes and unique constraints is done in
/// place with `ALTER TABLE` (adding an attribute with a default rewrites no row); any other step
/// copies the records into new tables that replace the old ones at the commit. Steps that are
/// not inferred are mapped by ``migrationMappingProviders``.
///
/// The table layout is described in `SQLSchemaMapping` and the column encodings in
/// `SQLiteValueCodec`.
public final class SQLiteStore: LocalStorage, ReadOnlyOpening, @unchecked Sendable {
    /// How SQLite keeps a commit atomic.
    public enum JournalMode: String, Sendable, Hashable {
        /// Write-ahead log (the default): readers never block the writer and see a snapshot.
        case wal = "WAL"
        /// The classic rollback journal (`DELETE`): a reader holds the database shared, so a
        /// commit waits for running reads (up to the busy timeout). For file systems where WAL's
        /// shared memory is not available, such as some network file systems.
        case rollback = "DELETE"
    }

    /// How hard a commit works to be on disk before it returns: `.full` is
    /// `synchronous = FULL` (the default), `.normal` is `synchronous = NORMAL`.
    public typealias Durability = CommitDurability

    /// The database file.
    public let fileURL: URL
    /// The configuration whose entities this store holds; `nil` holds every entity.
    public let configuration: String?
    /// The mappings of the migration steps that are not inferred, consulted in order (see
    /// `SchemaMappingProvider`).
    public let migrationMappingProviders: [any SchemaMappingProvider]
    /// What the `DataStack` may do when the file holds another model.
    public let localStorageOptions: LocalStorageOptions
    /// How durable commits are.
    public let durability: Durability
    /// How commits are kept atomic.
    public let journalMode: JournalMode
    /// The most memory, in bytes, each connection keeps for the database pages it read (SQLite's
    /// `cache_size`, rounded up to whole KiB; a negative size counts as zero, which leaves SQLite
    /// its minimum of a few pages).
    public let pageCacheSize: Int

    /// 8 MiB: the page cache of each connection unless the store is given another size.
    public static let defaultPageCacheSize = 8 << 20

    /// Persistent in local files, native filtering and sorting; durable with `.full`; readers concurrent with
    /// the writer in WAL mode.
    public var capabilities: StorageCapabilities {
        var capabilities: StorageCapabilities = [.persistent, .localFiles, .nativePredicates, .nativeSorting]
        if durability == .full { capabilities.insert(.durableCommits) }
        if journalMode == .wal { capabilities.insert(.concurrentReaders) }
        return capabilities
    }

    /// `SQLiteStore(<path>)`.
    public var storeDescription: String { "SQLiteStore(\(fileURL.path))" }

    /// The connections of an open store. The writer connection is used only by `open` and
    /// `write`, which the caller serializes.
    ///
    /// A class: every read and every commit takes it from the lifecycle, and copying a struct
    /// retained and released each of its fields (the whole schema mapping's) every time.
    private final class OpenState: @unchecked Sendable {
        let writer: SQLiteConnection
        let readers: SQLConnectionPool<SQLiteConnection>
        /// Opened with `openForReading`: `writer` is a read-only connection too.
        let isReadOnly: Bool
        /// The commit counters in WAL mode (`nil`: in the database, as with the classic journal
        /// and for a store opened for reading).
        let counterFile: SQLiteCounterFile?
        let mapping: SQLSchemaMapping
        /// Writes every commit's rows through `writer`, keeping their prepared statements.
        let rowWriter: SQLiteWriter
        /// The sorts whose limited fetches tied at a window edge: readers break the ties of
        /// the others themselves (see `SQLTopRowsWindow`).
        let sortTieMemory = SQLSortTieMemory()
        /// Whether fetches of an entity whose asker holds most of the records read the
        /// matching keys first (see `SQLHeldRecordsMemory`).
        let heldRecordsMemory = SQLHeldRecordsMemory()

        init(writer: SQLiteConnection, readers: SQLConnectionPool<SQLiteConnection>, isReadOnly: Bool, counterFile: SQLiteCounterFile?, mapping: SQLSchemaMapping, rowWriter: SQLiteWriter) {
            self.writer = writer
            self.readers = readers
            self.isReadOnly = isReadOnly
            self.counterFile = counterFile
            self.mapping = mapping
            self.rowWriter = rowWriter
        }
    }

    private let lifecycle: StoreLifecycle<OpenState>
    /// The paths of the database file and its write-ahead log, whose `stat` is the store's
    /// change signature (made once: every commit reads it).
    let signaturePaths: [String]

    /// A store in the file at `fileURL`; `migrationMappingProviders` map the migration steps
    /// that are not inferred.
    public init(
        fileURL: URL, configuration: String? = nil, migrationMappingProviders: [any SchemaMappingProvider] = [],
        localStorageOptions: LocalStorageOptions = .none, durability: Durability = .full, journalMode: JournalMode = .wal,
        pageCacheSize: Int = SQLiteStore.defaultPageCacheSize
    ) {
        self.fileURL = fileURL
        self.configuration = configuration
        self.migrationMappingProviders = migrationMappingProviders
        self.localStorageOptions = localStorageOptions
        self.durability = durability
        self.journalMode = journalMode
        self.pageCacheSize = pageCacheSize
        self.lifecycle = StoreLifecycle { "SQLiteStore(\(fileURL.path))" }
        self.signaturePaths = [fileURL.path, fileURL.path + "-wal"]
    }

    /// A store in the file `fileName` inside ``defaultDirectory``.
    public convenience init(
        fileName: String, configuration: String? = nil, migrationMappingProviders: [any SchemaMappingProvider] = [],
        localStorageOptions: LocalStorageOptions = .none, durability: Durability = .full, journalMode: JournalMode = .wal,
        pageCacheSize: Int = SQLiteStore.defaultPageCacheSize
    ) {
        self.init(fileURL: SQLiteStore.defaultDirectory.appendingPathComponent(fileName, isDirectory: false),
                  configuration: configuration, migrationMappingProviders: migrationMappingProviders,
                  localStorageOptions: localStorageOptions, durability: durability, journalMode: journalMode,
                  pageCacheSize: pageCacheSize)
    }

    /// A store in ``defaultFileURL``.
    public convenience init() {
        self.init(fileURL: SQLiteStore.defaultFileURL)
    }

    /// `$XDG_DATA_HOME/<process name>` (or `~/.local/share/<process name>`): see
    /// `LocalStorageLocation`.
    public static var defaultDirectory: URL {
        LocalStorageLocation.defaultDirectory
    }

    /// `<defaultDirectory>/<process name>.sqlite`.
    public static var defaultFileURL: URL {
        defaultDirectory.appendingPathComponent("\(ProcessInfo.processInfo.processName).sqlite", isDirectory: false)
    }

    // MARK: StorageInterface

    /// Opens (or creates) the database; see the type's documentation for what is checked.
    public func open(schema: StoreSchema) throws -> StoredMetadata? {
        if let state = lifecycle.current {
            return try SQLiteMetadata.read(state.writer)
        }
        let mapping = try SQLSchemaMapping(schema: schema, dialect: SQLiteDialect())
        let path = fileURL.path
        if let existing = try SQLiteMetadata.inspect(path: path, schema: schema) {
            guard existing.schemaHash == schema.schemaHash else { return existing }
            let writer = try openWriter(schema: schema)
            try SQLiteMetadata.verifyTables(writer, mapping: mapping)
            install(writer, mapping: mapping, schema: schema, counterFile: try attachCounterFile(writer, mapping: mapping))
            return existing
        }
        do {
            // Owner-only: the directory when it is new, and the file, which SQLite then opens
            // as an empty database (its -wal and -shm files take the file's permissions).
            try PrivateFiles.createDirectory(fileURL.deletingLastPathComponent())
            try PrivateFiles.createFile(atPath: path)
        } catch {
            throw StorageError.engine(code: Int(SQLITE_CANTOPEN), message: "cannot create \(path): \(error.localizedDescription)")
        }
        let writer = try openWriter(schema: schema)
        try writer.transaction {
            for statement in mapping.creationSQL { try writer.execute(statement) }
            try SQLiteMetadata.create(writer, metadata: StoredMetadata(modelVersion: schema.modelVersion, schemaHash: schema.schemaHash))
        }
        install(writer, mapping: mapping, schema: schema, counterFile: try attachCounterFile(writer, mapping: mapping))
        return nil
    }

    /// Opens the existing database for reads only (see `ReadOnlyOpening`): every connection is
    /// opened read-only, the journal mode is left as it is, and a file without CoreStore's
    /// tables is refused untouched.
    public func openForReading(schema: StoreSchema) throws -> StoredMetadata {
        guard lifecycle.current == nil else { throw StorageError.invalidRequest("\(fileURL.path) is already open") }
        guard let existing = try SQLiteMetadata.inspect(path: fileURL.path, schema: schema) else {
            throw StorageError.incompatibleStore(path: fileURL.path, reason: "it holds no CoreStore data")
        }
        guard existing.schemaHash == schema.schemaHash else { return existing }
        let mapping = try SQLSchemaMapping(schema: schema, dialect: SQLiteDialect())
        let connection = try SQLiteConnection(path: fileURL.path, flags: SQLITE_OPEN_READONLY, schema: schema)
        sqlite3_busy_timeout(connection.handle, 5000)
        try connection.execute(pageCacheSQL)
        try SQLiteMetadata.verifyTables(connection, mapping: mapping)
        install(connection, mapping: mapping, schema: schema, counterFile: nil, readOnly: true)
        return existing
    }

    /// Runs `body` inside one read transaction on a pooled connection.
    public func read<T>(_ body: (any StorageReader) throws -> T) throws -> T {
        let state = try lifecycle.open()
        return try state.readers.withConnection { connection in
            try connection.transaction(.deferred) {
                try body(SQLiteReader(connection: connection, mapping: state.mapping, heldRecordsMemory: state.heldRecordsMemory, sortTieMemory: state.sortTieMemory))
            }
        }
    }

    /// Runs `body` on a read connection of the open store, outside any transaction of ours.
    func withReadConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try lifecycle.open().readers.withConnection(body)
    }

    /// Applies `changes` in one transaction: all of it, or nothing.
    public func write(_ changes: ChangeSet) throws -> CommitInfo {
        let state = try lifecycle.open()
        if state.isReadOnly { throw StorageError.openedForReading(storeDescription) }
        if let counterFile = state.counterFile {
            return try write(changes, state: state, counterFile: counterFile)
        }
        let writer = state.writer
        var stored: CommitCounters?
        do {
            let info = try writer.transaction(.immediate) {
                try refuseIfSwitchedToWAL(writer)
                let before = try writer.currentCounters()
                return try state.rowWriter.commit(changes, counters: { before }, store: { counters, metadata in
                    try SQLiteMetadata.update(writer, counters: counters, previous: before, metadata: metadata)
                    stored = counters
                })
            }
            writer.remember(committed: stored)
            return info
        } catch {
            writer.remember(committed: nil)
            throw error
        }
    }

    /// ``write(_:)`` in WAL mode: the counters come from, and go to, the counters file; the
    /// database stores the next key only when the commit deletes records.
    private func write(_ changes: ChangeSet, state: OpenState, counterFile: SQLiteCounterFile) throws -> CommitInfo {
        let writer = state.writer
        var before = CommitCounters(nextKey: 1, sequence: 0)
        var published: CommitCounters?
        do {
            let info = try writer.transaction(.immediate) {
                before = counterFile.countersForCommit()
                var stored = before
                let info = try state.rowWriter.commit(changes, counters: { before }, store: { counters, metadata in
                    if let metadata { try SQLiteMetadata.write(writer, metadata) }
                    stored = counters
                })
                if !info.changes.deletes.isEmpty || !info.changes.unreadDeletes.isEmpty {
                    try SQLiteMetadata.storeNextKey(writer, stored.nextKey)
                }
                try counterFile.willCommit(stored)
                published = stored
                return info
            }
            if let published { counterFile.didCommit(published) }
            return info
        } catch {
            if let published { counterFile.commitFailed(published, startedFrom: before) }
            throw error
        }
    }

    /// With the classic journal, throws when another connection switched the file to WAL mode
    /// (a store in WAL mode added while this one was idle): its commits count in the counters
    /// file, which this store does not follow.
    private func refuseIfSwitchedToWAL(_ writer: SQLiteConnection) throws {
        guard case .text(let mode) = try writer.scalar("PRAGMA journal_mode"), mode.lowercased() == "wal" else { return }
        throw StorageError.incompatibleStore(path: fileURL.path, reason: "another connection switched it to WAL mode while this store uses the classic journal; add it again with journalMode: .wal")
    }

    /// Closes the store and deletes the database file and its side files.
    public func erase() throws {
        if lifecycle.current?.isReadOnly == true { throw StorageError.openedForReading(storeDescription) }
        closeState(storingCounters: false)
        let counterFilePath = SQLiteCounterFile.path(ofDatabase: fileURL.path)
        for suffix in [""] + Self.sideFileSuffixes {
            let url = URL(fileURLWithPath: suffix == SQLiteCounterFile.suffix ? counterFilePath : fileURL.path + suffix)
            guard FileManager.default.fileExists(atPath: url.path) else { continue }
            do {
                try FileManager.default.removeItem(at: url)
            } catch {
                throw StorageError.engine(code: Int(SQLITE_IOERR), message: "cannot delete \(url.path): \(error.localizedDescription)")
            }
        }
    }

    /// Closes every connection; later calls throw `notOpen` until the store is opened again.
    public func close() {
        closeState()
    }

    // MARK: Connections

    /// `storingCounters`: the database stores the counters of the counters file first (so that
    /// it shows them even if that file is lost), unless the store is about to be erased.
    private func closeState(storingCounters: Bool = true) {
        // The connections close (and SQLite checkpoints) before the file is marked closed.
        let wasOpen: Bool = {
            guard let state = lifecycle.close() else { return false }
            if storingCounters, let counterFile = state.counterFile {
                // Only when the database is behind (a read first: closing a store that
                // changed nothing writes nothing). A failure loses nothing: the file stays,
                // and opening again raises it to what the database shows.
                let counters = counterFile.highestCounters
                let behind = (try? state.writer.transaction(.deferred) { try SQLiteMetadata.counters(state.writer) }).map { $0.nextKey < counters.nextKey || $0.sequence < counters.sequence } ?? true
                if behind {
                    try? state.writer.transaction(.immediate) { try SQLiteMetadata.persist(state.writer, counters) }
                }
            }
            state.readers.close()
            return true
        }()
        if wasOpen { SQLiteOpenFiles.closed(fileURL.path) }
    }

    /// In WAL mode, maps the counters file and raises it to what the database shows. Another
    /// process using the file keeps it ahead of the database, so a read tells; only a file
    /// behind it (new, lost, or stale after a power cut) is raised, inside the write lock, so
    /// that no commit of another connection is half-way.
    ///
    /// With the classic journal the database's counters are used, first raised to those of a
    /// counters file the store left when it last ran in WAL mode.
    private func attachCounterFile(_ writer: SQLiteConnection, mapping: SQLSchemaMapping) throws -> SQLiteCounterFile? {
        guard journalMode == .wal else {
            if let left = SQLiteCounterFile.openForReading(databasePath: fileURL.path)?.highestCounters {
                try writer.transaction(.immediate) {
                    let stored = try SQLiteMetadata.counters(writer)
                    if stored.nextKey < left.nextKey || stored.sequence < left.sequence { try SQLiteMetadata.persist(writer, left) }
                }
            }
            return nil
        }
        let counterFile = try SQLiteCounterFile.openForWriting(databasePath: fileURL.path)
        let shown = try writer.transaction(.deferred) { try SQLiteMetadata.derivedCounters(writer, mapping: mapping) }
        if !counterFile.isAtLeast(shown) {
            try writer.transaction(.immediate) {
                counterFile.raise(to: try SQLiteMetadata.derivedCounters(writer, mapping: mapping))
            }
        }
        return counterFile
    }

    private func install(_ writer: SQLiteConnection, mapping: SQLSchemaMapping, schema: StoreSchema, counterFile: SQLiteCounterFile?, readOnly: Bool = false) {
        let path = fileURL.path
        let pageCacheSQL = pageCacheSQL
        let readers = SQLConnectionPool<SQLiteConnection>(maximum: 4, storeDescription: storeDescription) {
            let connection = try SQLiteConnection(path: path, flags: readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE, schema: schema)
            sqlite3_busy_timeout(connection.handle, 5000)
            try connection.execute("PRAGMA query_only = 1")
            try connection.execute(pageCacheSQL)
            return connection
        }
        lifecycle.install(OpenState(writer: writer, readers: readers, isReadOnly: readOnly, counterFile: counterFile, mapping: mapping, rowWriter: SQLiteWriter(connection: writer, mapping: mapping)))
        SQLiteOpenFiles.opened(path)
    }

    /// The suffixes of the files that may sit beside the database file, named after it: SQLite's
    /// write-ahead log and its index (`-wal`, `-shm`), its classic journal (`-journal`), and the
    /// commit counters every connection maps in WAL mode (`-counters`).
    public static let sideFileSuffixes = ["-wal", "-shm", "-journal", SQLiteCounterFile.suffix]

    /// Whether the store is open (a migration needs it closed).
    var isOpen: Bool { lifecycle.isOpen }

    /// The counters file of the open store (WAL mode, opened for writing).
    var counterFile: SQLiteCounterFile? { lifecycle.current?.counterFile }

    /// A read-write connection with the store's pragmas (journal mode, durability), used by
    /// `open` and by a migration.
    func openWriter(schema: StoreSchema) throws -> SQLiteConnection {
        let writer = try SQLiteConnection(path: fileURL.path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, schema: schema)
        sqlite3_busy_timeout(writer.handle, 5000)
        try writer.execute("PRAGMA encoding = 'UTF-8'")
        let mode = try writer.scalar("PRAGMA journal_mode = \(journalMode.rawValue)")
        guard mode == .text(journalMode.rawValue.lowercased()) else {
            throw StorageError.engine(code: Int(SQLITE_CANTOPEN), message: "cannot switch \(fileURL.path) to journal mode \(journalMode.rawValue) (it is \(mode))")
        }
        try writer.execute("PRAGMA synchronous = \(durability == .full ? "FULL" : "NORMAL")")
        try writer.execute("PRAGMA foreign_keys = OFF")
        try writer.execute(pageCacheSQL)
        return writer
    }

    /// Sets a connection's page cache to ``pageCacheSize`` (a negative `cache_size` is a size
    /// in KiB for SQLite, a positive one a number of pages).
    private var pageCacheSQL: String {
        let kibibytes = max(0, pageCacheSize / 1024 + (pageCacheSize % 1024 > 0 ? 1 : 0))
        return "PRAGMA cache_size = -\(kibibytes)"
    }
}
