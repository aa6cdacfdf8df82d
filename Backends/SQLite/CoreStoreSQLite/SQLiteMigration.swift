import Foundation
import CoreStoreSQL
import CSQLite
import CoreStoreStorage

/// One migration step inside a SQLite file, started by `SQLiteStore.beginMigration(from:to:)`.
///
/// Everything happens in one write transaction (`BEGIN IMMEDIATE`) on the migration's own
/// connection, committed by ``finish(metadata:counters:)`` only: SQLite's atomic commit is the
/// migration's crash safety. Killed at any moment before that, the file opens as the source
/// version; ``abandon()`` rolls back and the main file is byte for byte as it was.
///
/// The step is done one of two ways, decided by the first call that writes:
/// - **Copy.** ``writeDestination(_:)`` writes into destination tables created beside the
///   source ones, named with ``destinationPrefix`` (see `SQLMigrationStaging`, which SQLite and
///   PostgreSQL share). ``finish(metadata:counters:)`` drops the source tables, renames the
///   destination tables to their final names and creates the destination's indexes.
/// - **Native.** ``migrateNatively(_:)`` alters the source tables in place (see
///   ``SQLiteAlterationPlan``) when that gives exactly what a copy would.
final class SQLiteMigration: StorageMigration {
    /// The start of the destination's table names while records are copied. Not a name an
    /// entity can have, so it never meets a source table.
    static let destinationPrefix = "corestore-migration:"

    private enum Mode {
        /// Nothing written yet: the step may still be done natively or by copying.
        case undecided
        /// Records are copied into the prefixed destination tables.
        case copying
        /// The source tables were altered in place into the destination's layout.
        case native
        /// Finished or abandoned: the connection is closed.
        case ended
    }

    /// The metadata stored with the source version.
    let sourceMetadata: StoredMetadata
    /// The counters stored with the source version.
    let sourceCounters: CommitCounters

    private var connection: SQLiteConnection?
    private var mode = Mode.undecided
    /// The destination tables of a copy, and the source and destination mappings.
    private let staging: SQLMigrationStaging<SQLiteConnection>
    private var sourceMapping: SQLSchemaMapping { staging.sourceMapping }
    private var destinationMapping: SQLSchemaMapping { staging.destinationMapping }

    /// Begins the transaction on `connection` (a writer connection to the file) and checks that
    /// the file holds `source`'s version.
    init(connection: SQLiteConnection, source: StoreSchema, destination: StoreSchema) throws {
        staging = try SQLMigrationStaging(connection: connection, source: source, destination: destination,
                                          prefix: Self.destinationPrefix, dialect: SQLiteDialect())
        try connection.execute("BEGIN IMMEDIATE")
        do {
            let metadata = try SQLiteMetadata.read(connection)
            guard metadata.schemaHash == source.schemaHash else {
                throw StorageError.incompatibleStore(path: connection.path, reason: "it holds schema hash \(metadata.schemaHash), not the migration's source \(source.schemaHash)")
            }
            sourceMetadata = metadata
            try SQLiteMetadata.verifyTables(connection, mapping: staging.sourceMapping)
            // The counters as the database shows them, and as the counters file has them
            // when the store was last used in WAL mode (the database may be behind it).
            var counters = try SQLiteMetadata.derivedCounters(connection, mapping: staging.sourceMapping)
            if let file = SQLiteCounterFile.openForReading(databasePath: connection.path) {
                let left = file.highestCounters
                counters = CommitCounters(nextKey: max(counters.nextKey, left.nextKey), sequence: max(counters.sequence, left.sequence))
            }
            sourceCounters = counters
            try Self.dropStagingTables(connection)
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
        self.connection = connection
    }

    deinit {
        end(rollingBack: true)
    }

    // MARK: Reading the source

    /// Runs `body` on the source tables, inside the migration's transaction.
    func readSource<T>(_ body: (any StorageReader) throws -> T) throws -> T {
        let connection = try sourceConnection()
        return try body(SQLiteReader(connection: connection, mapping: sourceMapping))
    }

    // MARK: Writing the destination

    /// Runs `body` on what was written to the destination so far.
    func readDestination<T>(_ body: (any StorageReader) throws -> T) throws -> T {
        let connection = try activeConnection()
        if mode == .native {
            return try body(SQLiteReader(connection: connection, mapping: destinationMapping))
        }
        try beginCopying()
        return try body(try staging.reader())
    }

    /// Writes `changes` into the destination tables (unique constraints are checked when
    /// ``finish(metadata:counters:)`` creates the indexes).
    func writeDestination(_ changes: MergedChanges) throws {
        _ = try activeConnection()
        try beginCopying()
        try staging.write(changes)
    }

    /// Alters the source tables in place when ``SQLiteAlterationPlan`` can do the whole step
    /// exactly; `false` (nothing changed) otherwise, or once records were copied.
    func migrateNatively(_ step: LightweightMigrationStep) throws -> Bool {
        let connection = try activeConnection()
        guard mode == .undecided else { return mode == .native }
        guard step.source == sourceMapping.schema, step.destination == destinationMapping.schema else {
            throw StorageError.invalidRequest("the lightweight step goes from '\(step.source.modelVersion)' to '\(step.destination.modelVersion)', not from '\(sourceMapping.schema.modelVersion)' to '\(destinationMapping.schema.modelVersion)' as the migration does")
        }
        guard let plan = SQLiteAlterationPlan(step: step, source: sourceMapping, destination: destinationMapping) else { return false }
        mode = .native
        try SQLiteTableAlterer(connection: connection).apply(plan, destination: destinationMapping)
        return true
    }

    // MARK: Ending

    /// Makes the destination the store's data (copied: drop the source tables, rename the
    /// destination tables, create the indexes), stores `metadata` and `counters`, commits and
    /// closes. On an error (a unique constraint the data violates, for one) everything is rolled
    /// back and the store keeps the source version.
    func finish(metadata: StoredMetadata, counters: CommitCounters) throws {
        let connection = try activeConnection()
        do {
            if mode != .native {
                try beginCopying()
                try staging.replaceSource()
            }
            try SQLiteMetadata.update(connection, counters: counters, metadata: metadata)
            try connection.execute("COMMIT")
        } catch {
            end(rollingBack: true)
            throw error
        }
        end(rollingBack: false)
    }

    /// Rolls back and closes; the file keeps the source version.
    func abandon() {
        end(rollingBack: true)
    }

    private func end(rollingBack: Bool) {
        if rollingBack, let connection, sqlite3_get_autocommit(connection.handle) == 0 {
            try? connection.execute("ROLLBACK")
        }
        staging.end()
        connection = nil
        mode = .ended
    }

    // MARK: State

    /// The connection while the migration's transaction is open. Throws once the migration
    /// ended, or when SQLite rolled the transaction back on its own after an error (a full disk):
    /// nothing may then be written outside the transaction.
    private func activeConnection() throws -> SQLiteConnection {
        guard let connection, mode != .ended else {
            throw StorageError.invalidRequest("the migration has already finished or been abandoned")
        }
        guard sqlite3_get_autocommit(connection.handle) == 0 else {
            throw StorageError.engine(code: Int(SQLITE_ABORT), message: "SQLite rolled back the migration of \(connection.path) after an earlier error")
        }
        return connection
    }

    /// The connection while the source tables are still the source version.
    private func sourceConnection() throws -> SQLiteConnection {
        let connection = try activeConnection()
        guard mode != .native else {
            throw StorageError.invalidRequest("the source tables were already migrated in place")
        }
        return connection
    }

    /// Creates the destination tables on the first copying call.
    private func beginCopying() throws {
        switch mode {
        case .copying:
            return
        case .native:
            throw StorageError.invalidRequest("the step was migrated in place; records cannot be copied as well")
        case .ended:
            throw StorageError.invalidRequest("the migration has already finished or been abandoned")
        case .undecided:
            try staging.start()
            mode = .copying
        }
    }

    /// Drops destination tables left by an earlier migration (only possible if SQLite
    /// committed part of one on its own after an error).
    private static func dropStagingTables(_ connection: SQLiteConnection) throws {
        var stale: [String] = []
        try connection.statement("SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, ?1) = ?2")
            .query([.integer(Int64(destinationPrefix.utf8.count)), .text(destinationPrefix)]) { row in
                if let name = row.text(0) { stale.append(name) }
            }
        for table in stale { try connection.execute("DROP TABLE \(table.sqlIdentifier)") }
    }
}
