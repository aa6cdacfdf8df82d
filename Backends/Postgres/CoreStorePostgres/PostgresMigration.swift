import Foundation
import CoreStoreSQL
import CoreStoreStorage

/// One migration step of a store in PostgreSQL, started by
/// `PostgresStore.beginMigration(from:to:)`.
///
/// The whole step is one `READ COMMITTED` transaction on a connection of its own, committed by
/// ``finish(metadata:counters:)`` only; PostgreSQL's transactional DDL makes the creating,
/// dropping and renaming of tables part of it. Ended any other way (an error, ``abandon()``, the
/// process killed, the connection lost), the server rolls it all back and the store keeps the
/// source version.
///
/// Other processes are kept out for as long as it runs:
/// - it holds the store's advisory lock (`pg_advisory_xact_lock`), which opening, erasing and
///   migrating the store take too: a process that opens the store meanwhile waits, then finds it
///   migrated;
/// - it locks the store's counter rows, which every commit locks first: a commit of a process
///   still on the source model waits, then finds the new model version and fails with an error
///   saying so, writing nothing.
///
/// Records are copied into tables beside the source ones (``SQLMigrationStaging``, shared with
/// SQLite), named with ``destinationPrefix``; `finish` replaces the source tables with them,
/// creates the indexes, stores the new metadata, counts the records of each entity anew
/// (``SQLRecordCounts``) and clears the commit log (its summaries name
/// the source model's entities); once committed, the new tables are analyzed.
final class PostgresMigration: StorageMigration {
    /// The start of the destination's table names while records are copied: short, because
    /// PostgreSQL keeps 63 bytes of a name, and not a name an entity can have.
    static let destinationPrefix = "~new:"

    let sourceMetadata: StoredMetadata
    let sourceCounters: CommitCounters

    private var connection: PostgresConnection?
    private let staging: SQLMigrationStaging<PostgresConnection>
    private let schemaName: String

    /// Begins the transaction on `connection` (a new connection to the store's schema), takes
    /// the locks and checks that the store holds `source`'s version.
    init(connection: PostgresConnection, schemaName: String, source: StoreSchema, destination: StoreSchema) throws {
        self.schemaName = schemaName
        staging = try SQLMigrationStaging(connection: connection, source: source, destination: destination,
                                          prefix: Self.destinationPrefix, dialect: PostgresDialect())
        let place = "\(connection.location) schema \(schemaName)"
        try connection.execute("BEGIN ISOLATION LEVEL READ COMMITTED")
        do {
            try connection.execute("SELECT pg_advisory_xact_lock(\(PostgresMetadata.lockKey(schemaName)))")
            guard let metadata = try PostgresMetadata.inspect(connection, schemaName: schemaName) else {
                throw StorageError.incompatibleStore(path: place, reason: "it holds no store to migrate")
            }
            guard metadata.schemaHash == source.schemaHash else {
                throw StorageError.incompatibleStore(path: place, reason: "it holds model version '\(metadata.modelVersion)' (schema hash \(metadata.schemaHash)), not the migration's source '\(source.modelVersion)' (schema hash \(source.schemaHash))")
            }
            // Locked until the migration ends: every commit locks these rows first.
            sourceCounters = try PostgresMetadata.counters(connection, lock: true)
            sourceMetadata = metadata
            try PostgresMetadata.verifyTables(connection, mapping: staging.sourceMapping, schemaName: schemaName)
            let tables = try PostgresMetadata.tables(connection, schemaName: schemaName)
            for stale in SQLMigrationStaging<PostgresConnection>.staleTables(among: tables, prefix: Self.destinationPrefix) {
                try connection.execute("DROP TABLE \(stale.sqlIdentifier)")
            }
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
        self.connection = connection
    }

    deinit {
        end(rollingBack: true)
    }

    /// Runs `body` on the source tables, inside the migration's transaction.
    func readSource<T>(_ body: (any StorageReader) throws -> T) throws -> T {
        let connection = try activeConnection()
        return try body(SQLReader(connection: connection, mapping: staging.sourceMapping))
    }

    /// Runs `body` on what was written to the destination so far.
    func readDestination<T>(_ body: (any StorageReader) throws -> T) throws -> T {
        _ = try activeConnection()
        return try body(try staging.reader())
    }

    /// Writes `changes` into the destination tables (unique constraints are checked when
    /// ``finish(metadata:counters:)`` creates the indexes).
    func writeDestination(_ changes: MergedChanges) throws {
        _ = try activeConnection()
        try staging.write(changes)
    }

    /// Replaces the source tables with the destination's, stores `metadata` and `counters`,
    /// clears the commit log and commits. On an error (a unique constraint the data violates,
    /// for one) everything is rolled back and the store keeps the source version.
    func finish(metadata: StoredMetadata, counters: CommitCounters) throws {
        let connection = try activeConnection()
        do {
            try staging.replaceSource()
            try PostgresMetadata.update(connection, counters: counters, metadata: metadata)
            try connection.execute(SQLRecordCounts.creationSQL)
            try SQLRecordCounts.recount(mapping: staging.destinationMapping, sequence: counters.sequence, on: connection)
            try connection.execute(SQLCommitLog.creationSQL)
            try connection.execute("DELETE FROM \(SQLCommitLog.table.sqlIdentifier)")
            try connection.execute("COMMIT")
        } catch {
            end(rollingBack: true)
            throw error
        }
        // The new tables have no planner statistics yet; without them a lookup by an indexed
        // attribute walks the whole `_key` index until autovacuum comes round. Best effort:
        // the migration is committed either way.
        try? PostgresStatistics.analyze(staging.destinationMapping.tableOrder, schemaName: schemaName, on: connection)
        end(rollingBack: false)
    }

    /// Rolls back and closes; the store keeps the source version.
    func abandon() {
        end(rollingBack: true)
    }

    private func end(rollingBack: Bool) {
        if rollingBack, let connection, connection.isInTransaction {
            try? connection.execute("ROLLBACK")
        }
        staging.end()
        connection = nil
    }

    /// The connection while the migration's transaction is open.
    private func activeConnection() throws -> PostgresConnection {
        guard let connection else {
            throw StorageError.invalidRequest("the migration of schema \(schemaName) has already finished or been abandoned")
        }
        return connection
    }
}
