import Foundation
import CoreStoreStorage

/// The destination of a migration step that copies its records, in tables beside the source's.
///
/// The destination tables are named with a prefix no entity name can have, so they never meet a
/// source table, and have no indexes while records are loaded (bulk loading is faster without
/// them). ``replaceSource()`` then drops the source tables, gives the destination tables their
/// final names and creates the destination's indexes. Every statement runs in the migration's
/// one transaction on `connection`, which the backend begins and commits or rolls back: its
/// atomic commit is what keeps the source version intact until the migration finishes.
///
/// Used by one thread at a time.
package final class SQLMigrationStaging<Connection: SQLConnection> {
    /// The source tables, as they are.
    package let sourceMapping: SQLSchemaMapping
    /// The destination tables beside the source ones, with prefixed names.
    package let stagingMapping: SQLSchemaMapping
    /// The destination under its final names.
    package let destinationMapping: SQLSchemaMapping

    private let connection: Connection
    private let prefix: String
    /// Ordered to-many positions waiting for their destination rows; `nil` until ``start()``.
    private var pendingPositions: SQLPendingPositionTable<Connection>?

    /// Maps `source` and `destination` for `connection`. Throws `StorageError.invalidRequest`
    /// when the database would shorten two prefixed names to the same identifier.
    package init(connection: Connection, source: StoreSchema, destination: StoreSchema, prefix: String, dialect: any SQLDialect) throws {
        self.connection = connection
        self.prefix = prefix
        sourceMapping = try SQLSchemaMapping(schema: source, dialect: dialect)
        stagingMapping = try SQLSchemaMapping(schema: destination, tablePrefix: prefix, dialect: dialect)
        destinationMapping = try SQLSchemaMapping(schema: destination, dialect: dialect)
        if let limit = dialect.maximumIdentifierLength {
            var seen: [String: String] = [:]
            for table in stagingMapping.allTables {
                let shortened = String(decoding: table.utf8.prefix(limit), as: UTF8.self)
                if let other = seen.updateValue(table, forKey: shortened) {
                    throw StorageError.invalidRequest("the migration to '\(destination.modelVersion)' cannot stage the tables '\(other.dropFirst(prefix.count))' and '\(table.dropFirst(prefix.count))': the database keeps only the first \(limit) bytes of a name, and theirs are the same; shorten an entity or relationship name")
                }
            }
        }
    }

    /// Whether the destination tables exist (a record was written, or a reader asked for).
    package var isStarted: Bool { pendingPositions != nil }

    /// Creates the destination tables, once.
    package func start() throws {
        guard pendingPositions == nil else { return }
        for statement in stagingMapping.tableCreationSQL { try connection.execute(statement) }
        pendingPositions = SQLPendingPositionTable(connection: connection, dialect: stagingMapping.dialect)
    }

    /// Writes `changes` into the destination tables (unique constraints are checked when
    /// ``replaceSource()`` creates the indexes).
    package func write(_ changes: MergedChanges) throws {
        try start()
        try SQLWriter(connection: connection, mapping: stagingMapping, pendingPositions: pendingPositions).apply(changes)
    }

    /// A reader of what was written so far (waiting positions applied first).
    package func reader() throws -> SQLReader<Connection> {
        try start()
        try pendingPositions?.apply()
        return SQLReader(connection: connection, mapping: stagingMapping)
    }

    /// Drops the source tables, renames the destination tables to their final names and
    /// creates the destination's indexes. A unique constraint the data violates throws
    /// `StorageError.uniqueConstraintViolation`.
    package func replaceSource() throws {
        try start()
        try pendingPositions?.apply()
        try pendingPositions?.drop()
        for table in sourceMapping.allTables {
            try connection.execute("DROP TABLE IF EXISTS \(table.sqlIdentifier)")
        }
        for table in stagingMapping.allTables {
            let finalName = String(table.dropFirst(prefix.count))
            try connection.execute("ALTER TABLE \(table.sqlIdentifier) RENAME TO \(finalName.sqlIdentifier)")
        }
        for index in destinationMapping.indexes {
            try index.create(on: connection)
        }
    }

    /// Forgets the waiting positions (the backend rolls the transaction back or committed it).
    package func end() {
        pendingPositions = nil
    }

    /// The names among `tables` that are destination tables of `prefix` (left by a migration
    /// that the database committed in part on its own after an error).
    package static func staleTables(among tables: some Sequence<String>, prefix: String) -> [String] {
        tables.filter { $0.hasPrefix(prefix) }.sorted()
    }
}
