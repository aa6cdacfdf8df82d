import Foundation
import CPostgres
import CoreStoreSQL
import CoreStoreStorage

/// A store in a PostgreSQL database, for apps that run as several processes (or on several
/// machines) over one shared store.
///
/// ```swift
/// try dataStack.addStorageAndWait(PostgresStore(url: "postgres://app@db.internal/app"))
/// try dataStack.addStorageAndWait(PostgresStore(host: "db.internal", user: "app", password: secret, database: "app", tls: .require))
/// ```
///
/// ## Tables
/// The store keeps its tables in one PostgreSQL schema (a namespace, `corestore` unless
/// `schemaName` says otherwise), laid out as `SQLSchemaMapping` describes, with the column
/// types of `PostgresDialect`. Several stores can share a database under different schema
/// names. Beside the entities' tables: the metadata and counters (`corestore_metadata`), the
/// latest commits' summaries (`SQLCommitLog`) and each entity's number of records
/// (`SQLRecordCounts`, which answers a count without a predicate), all written by each commit.
///
/// ## Consistency
/// Commits run one at a time across every connection and process: each is one transaction
/// whose first statement locks the store's counters row (`SELECT … FOR UPDATE`), so a commit
/// waits for the one before it to end, then reads the stored records as that one left them
/// (`READ COMMITTED`: each statement sees every commit made before it). Record keys come from
/// those counters, so they never collide between processes. Should PostgreSQL still report a
/// serialization failure or a deadlock, the commit is run again from the start, up to
/// ``maximumCommitAttempts`` times, and then fails with a clear error; nothing is written by a
/// commit that fails. Each read runs in one `REPEATABLE READ READ ONLY` transaction: it sees
/// one snapshot.
///
/// ## Connections
/// One connection writes (the `DataStack` serializes commits; it is replaced when the server
/// dropped it), up to `maximumReaders` more read at once, and one listens for other processes'
/// commits (`LISTEN`; see the `SharedAccessStorage` conformance). Each carries the
/// `application_name` `corestore:<schema>`. The password is never part of ``storeDescription``
/// or of any message.
///
/// ## Planner statistics
/// A commit that inserted or deleted at least 1,000 rows of a table, and at least half as many
/// as the server's statistics counted in it, is followed by `ANALYZE` of that table, so that
/// queries on a freshly loaded table use its indexes at once instead of after autovacuum's next
/// round. The commit does not depend on it: a failed refresh is left to autovacuum.
public final class PostgresStore: StorageInterface, @unchecked Sendable {
    /// How the connection is encrypted (libpq's `sslmode`).
    public enum TLS: String, Sendable, Hashable {
        /// Never encrypted.
        case disable
        /// Encrypted when the server offers it (libpq's default).
        case prefer
        /// Always encrypted; the server's certificate is not checked.
        case require
        /// Always encrypted, with a certificate signed by a trusted authority for the host.
        case verifyFull = "verify-full"
    }

    /// The PostgreSQL schema (namespace) that holds the store's tables.
    public let schemaName: String
    /// The configuration whose entities this store holds; `nil` holds every entity.
    public let configuration: String?
    /// How many connections may read at once.
    public let maximumReaders: Int
    /// How many times a commit that met a concurrent commit is run before it fails.
    public let maximumCommitAttempts = 20
    /// What a `DataStack` may do when the store holds another model version (see
    /// `UpgradableStorage`).
    public let localStorageOptions: LocalStorageOptions
    /// The mappings of migration steps that are not inferred.
    public let migrationMappingProviders: [any SchemaMappingProvider]

    /// The libpq connection string (with the password, if any: never shown).
    let connectionString: String
    /// `postgres://user@host:port/database`, without the password.
    private let location: String

    /// Persistent and durable (a commit returns once the server has it on disk), native
    /// filtering and sorting, concurrent readers.
    public var capabilities: StorageCapabilities {
        [.persistent, .durableCommits, .concurrentReaders, .nativePredicates, .nativeSorting]
    }

    /// `PostgresStore(postgres://user@host:port/database, schema)`, without the password.
    public var storeDescription: String { "PostgresStore(\(location), schema \(schemaName))" }

    /// The connections and the mapping of the open store. A class: every read and every
    /// commit takes it from the lifecycle, and copying a struct retained and released each of
    /// its fields (the whole schema mapping's) every time.
    final class OpenState: @unchecked Sendable {
        let writer: PostgresWriterConnection
        let readers: SQLConnectionPool<PostgresConnection>
        let mapping: SQLSchemaMapping
        let listener: PostgresChangeListener
        /// Whether the readers' fetches of records the asker mostly holds ask for the matching
        /// keys first (see `SQLHeldRecordsMemory`).
        let heldRecordsMemory = SQLHeldRecordsMemory()
        /// Which double attributes' sums add in key order at once (see `SQLOrderedSumMemory`).
        let orderedSumMemory = SQLOrderedSumMemory()

        init(writer: PostgresWriterConnection, readers: SQLConnectionPool<PostgresConnection>, mapping: SQLSchemaMapping, listener: PostgresChangeListener) {
            self.writer = writer
            self.readers = readers
            self.mapping = mapping
            self.listener = listener
        }
    }

    private let lifecycle: StoreLifecycle<OpenState>

    /// The open state; throws `notOpen` while closed.
    func openState() throws -> OpenState { try lifecycle.open() }

    /// The open state; `nil` while closed.
    var currentState: OpenState? { lifecycle.current }

    /// A store reached through a `postgres://` (or `postgresql://`) URL, or a libpq key-value
    /// connection string (`host=… dbname=…`).
    public init(
        url: String, schemaName: String = "corestore", configuration: String? = nil, maximumReaders: Int = 4,
        migrationMappingProviders: [any SchemaMappingProvider] = [], localStorageOptions: LocalStorageOptions = .none
    ) {
        self.connectionString = url
        self.migrationMappingProviders = migrationMappingProviders
        self.localStorageOptions = localStorageOptions
        self.location = PostgresLocation.redacted(url)
        self.schemaName = schemaName
        self.configuration = configuration
        self.maximumReaders = max(1, maximumReaders)
        let description = "PostgresStore(\(location), schema \(schemaName))"
        self.lifecycle = StoreLifecycle { description }
    }

    /// A store on `host` (a name, an address, or the directory of a Unix socket).
    public convenience init(
        host: String, port: Int = 5432, user: String, password: String? = nil, database: String, tls: TLS = .prefer,
        schemaName: String = "corestore", configuration: String? = nil, maximumReaders: Int = 4,
        migrationMappingProviders: [any SchemaMappingProvider] = [], localStorageOptions: LocalStorageOptions = .none
    ) {
        var parts = ["host=\(PostgresLocation.quoted(host))", "port=\(port)", "user=\(PostgresLocation.quoted(user))",
                     "dbname=\(PostgresLocation.quoted(database))", "sslmode=\(tls.rawValue)"]
        if let password { parts.append("password=\(PostgresLocation.quoted(password))") }
        self.init(url: parts.joined(separator: " "), schemaName: schemaName, configuration: configuration, maximumReaders: maximumReaders,
                  migrationMappingProviders: migrationMappingProviders, localStorageOptions: localStorageOptions)
    }

    deinit {
        // The listener's thread holds its own connection: a store dropped without `close()`
        // must not leave it running.
        lifecycle.current?.listener.stop()
    }

    // MARK: StorageInterface

    /// Connects, and creates the store's schema and tables when there are none. Returns the
    /// stored metadata of an existing store (which may be another model's: then nothing else
    /// happens), `nil` for a new one.
    public func open(schema: StoreSchema) throws -> StoredMetadata? {
        if let state = lifecycle.current {
            return try PostgresMetadata.read(try state.writer.current(), schemaName: schemaName)
        }
        let mapping = try SQLSchemaMapping(schema: schema, dialect: PostgresDialect())
        let writer = try connect()
        let existing: StoredMetadata? = try writer.transaction("READ COMMITTED") {
            // Two processes opening a new store at once: one creates it, the other waits and
            // then finds it.
            try writer.execute("SELECT pg_advisory_xact_lock(\(PostgresMetadata.lockKey(schemaName)))")
            if let existing = try PostgresMetadata.inspect(writer, schemaName: schemaName) { return existing }
            try writer.execute("CREATE SCHEMA IF NOT EXISTS \(schemaName.sqlIdentifier)")
            for statement in mapping.creationSQL { try writer.execute(statement) }
            try writer.execute(SQLCommitLog.creationSQL)
            try PostgresMetadata.create(writer, metadata: StoredMetadata(modelVersion: schema.modelVersion, schemaHash: schema.schemaHash))
            try writer.execute(SQLRecordCounts.creationSQL)
            try SQLRecordCounts.recount(mapping: mapping, sequence: 0, on: writer)
            return nil
        }
        if let existing {
            guard existing.schemaHash == schema.schemaHash else { return existing }
            let tables = try PostgresMetadata.verifyTables(writer, mapping: mapping, schemaName: schemaName)
            // A store made before commit summaries were kept gets their table now.
            if !tables.contains(SQLCommitLog.table) {
                try writer.execute(SQLCommitLog.creationSQL)
            }
            try PostgresMetadata.bringRecordCountsUpToDate(writer, mapping: mapping, tables: tables)
        }
        install(writer, mapping: mapping)
        return existing
    }

    /// Runs `body` inside one read-only transaction (one snapshot) on a pooled connection.
    public func read<T>(_ body: (any StorageReader) throws -> T) throws -> T {
        let state = try lifecycle.open()
        return try state.readers.withConnection { connection in
            try connection.transaction("REPEATABLE READ READ ONLY") {
                try body(SQLReader(
                    connection: connection, mapping: state.mapping, heldRecordsMemory: state.heldRecordsMemory, orderedSumMemory: state.orderedSumMemory,
                    recordCounts: PostgresMetadata.recordCounts))
            }
        }
    }

    /// Applies `changes` in one transaction, after every commit before it: all of it, or
    /// nothing (see the type's documentation).
    public func write(_ changes: ChangeSet) throws -> CommitInfo {
        let state = try lifecycle.open()
        var attempt = 1
        while true {
            do {
                // READ COMMITTED: each statement after the lock on the counters sees every
                // commit that came before (see the type's documentation).
                let writer = try state.writer.current()
                let info = try writer.transaction("READ COMMITTED") {
                    var stored: CommitCounters?
                    var previousSequence: UInt64?
                    let info = try SQLWriter.commit(changes, on: writer, mapping: state.mapping,
                                         counters: {
                                             let counters = try PostgresMetadata.counters(writer, lock: true, expecting: state.mapping.schema)
                                             previousSequence = counters.sequence
                                             return counters
                                         },
                                         store: { counters, metadata in
                                             if let metadata { try PostgresMetadata.write(writer, metadata) }
                                             stored = counters
                                         })
                    guard let stored, let previousSequence else {
                        throw StorageError.invalidRequest("the commit to \(storeDescription) produced no counters to store; nothing was written")
                    }
                    // The counters, the record counts, what changed (for the stacks of other
                    // connections to catch up with) and the notification every listener gets
                    // when this commits.
                    try PostgresCommitRecord.record(info, counters: stored, after: previousSequence, channel: channel, on: writer)
                    return info
                }
                // Committed: a table the commit filled or emptied is analyzed now, not a minute
                // later (see PostgresStatistics); a failure here leaves that to autovacuum.
                try? PostgresStatistics.refresh(after: info.changes, mapping: state.mapping, schemaName: schemaName, on: writer)
                return info
            } catch let error as StorageError where PostgresStore.isConflict(error) {
                guard attempt < maximumCommitAttempts else {
                    throw StorageError.engine(code: PostgresSQLState.serializationFailure, message: "the commit to \(storeDescription) met concurrent commits \(attempt) times in a row and was given up; nothing was written")
                }
                attempt += 1
                // Back off a little, more each time, so that the competing commits spread out.
                usleep(UInt32.random(in: 0...UInt32(min(attempt, 10) * 2_000)))
            }
        }
    }

    /// Whether `error` is PostgreSQL telling a transaction to run again.
    static func isConflict(_ error: StorageError) -> Bool {
        guard case .engine(let code, _) = error else { return false }
        return code == PostgresSQLState.serializationFailure || code == PostgresSQLState.deadlockDetected
    }

    /// Closes the store and drops its schema with every table in it.
    public func erase() throws {
        let writer: PostgresConnection
        if let state = lifecycle.current {
            writer = try state.writer.current()
        } else {
            writer = try connect()
        }
        closeState()
        try writer.transaction("READ COMMITTED") {
            try writer.execute("SELECT pg_advisory_xact_lock(\(PostgresMetadata.lockKey(schemaName)))")
            try writer.execute("DROP SCHEMA IF EXISTS \(schemaName.sqlIdentifier) CASCADE")
        }
    }

    /// Closes every connection; later calls throw `notOpen` until the store is opened again.
    public func close() {
        closeState()
    }

    // MARK: Connections

    private func closeState() {
        guard let state = lifecycle.close() else { return }
        state.listener.stop()
        state.readers.close()
    }

    /// The notification channel of the store's commits.
    var channel: String { PostgresChangeListener.channel(schemaName) }

    private func install(_ writer: PostgresConnection, mapping: SQLSchemaMapping) {
        // The pool and the listener open connections with the store's parameters, not through
        // the store: neither keeps it alive.
        let (connectionString, location, schemaName) = (self.connectionString, self.location, self.schemaName)
        let connect: @Sendable () throws -> PostgresConnection = {
            try Self.connect(connectionString, location: location, schemaName: schemaName)
        }
        let readers = SQLConnectionPool<PostgresConnection>(maximum: maximumReaders, storeDescription: storeDescription,
                                                            isReusable: { $0.isUsable }, open: connect)
        let writerConnection = PostgresWriterConnection(writer, connect: connect)
        // The notification of the store's own commit tells its stack nothing new.
        let listener = PostgresChangeListener(channel: channel, connect: connect,
                                              isOwnCommit: { [weak writerConnection] sender in writerConnection?.serverProcessID == sender })
        lifecycle.install(OpenState(writer: writerConnection, readers: readers, mapping: mapping, listener: listener))
    }

    /// A new connection whose search path is the store's schema.
    func connect() throws -> PostgresConnection {
        try Self.connect(connectionString, location: location, schemaName: schemaName)
    }

    /// `application_name` (what `pg_stat_activity` shows) names the store's schema.
    private static func connect(_ connectionString: String, location: String, schemaName: String) throws -> PostgresConnection {
        let connection = try PostgresConnection(connectionString: connectionString, location: location)
        try connection.execute("SET search_path TO \(schemaName.sqlIdentifier); SET application_name TO \(String(decoding: "corestore:\(schemaName)".utf8.prefix(60), as: UTF8.self).sqlLiteral)")
        return connection
    }
}
