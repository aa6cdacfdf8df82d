import Foundation
import CoreStoreStorage

/// Positions of ordered to-many relationships written before their destination rows exist, in
/// a temporary table of the migration's connection.
///
/// An ordered to-many whose inverse is to-one keeps each destination's position in a column of
/// the destination's row (see ``SQLSchemaMapping``). Within one commit every row is inserted
/// before positions are written, but a migration writes its destination in batches in any
/// order, so an owner may come before the records it points to. Those positions wait here (in
/// the database, so memory stays bounded) until ``apply()`` writes them into the rows that
/// exist by then.
///
/// Used only by the thread that holds the connection, inside the migration's transaction.
package final class SQLPendingPositionTable<Connection: SQLConnection>: SQLPendingPositions {
    private let connection: Connection
    private let dialect: any SQLDialect
    /// Whether the temporary table was created (only once a position found no row).
    private var isCreated = false

    package static var table: String { "corestore_pending_positions" }
    private var qualifiedTable: String { "\(dialect.temporarySchema).\(Self.table.sqlIdentifier)" }

    package init(connection: Connection, dialect: any SQLDialect) {
        self.connection = connection
        self.dialect = dialect
    }

    private func p(_ number: Int) -> String { dialect.placeholder(number) }

    /// Notes the position just written for the row `key` of `table`: `found` tells whether the
    /// row exists. A missing row's position waits; a found row's waiting position (written
    /// by an earlier batch) is outdated and dropped.
    package func record(table: String, column: String, key: Int64, position: Int64, found: Bool) throws {
        if found {
            guard isCreated else { return }
            try connection.statement("DELETE FROM \(qualifiedTable) WHERE \"table\" = \(p(1)) AND \"column\" = \(p(2)) AND \"key\" = \(p(3))")
                .execute([.text(table), .text(column), .integer(key)])
            return
        }
        try create()
        try connection.statement("""
            INSERT INTO \(qualifiedTable) ("table", "column", "key", "position") VALUES (\(p(1)), \(p(2)), \(p(3)), \(p(4))) \
            ON CONFLICT ("table", "column", "key") DO UPDATE SET "position" = excluded."position"
            """).execute([.text(table), .text(column), .integer(key), .integer(position)])
    }

    /// Writes every waiting position whose row now exists, and forgets it.
    package func apply() throws {
        guard isCreated else { return }
        var slots: [(table: String, column: String)] = []
        try connection.statement("SELECT DISTINCT \"table\", \"column\" FROM \(qualifiedTable)").query([]) { row in
            slots.append((row.text(0) ?? "", row.text(1) ?? ""))
        }
        for (table, column) in slots {
            let waiting = "SELECT p.\"key\" FROM \(qualifiedTable) p WHERE p.\"table\" = \(p(1)) AND p.\"column\" = \(p(2))"
            try connection.statement("""
                UPDATE \(table.sqlIdentifier) SET \(column.sqlIdentifier) = (SELECT p."position" FROM \(qualifiedTable) p \
                WHERE p."table" = \(p(1)) AND p."column" = \(p(2)) AND p."key" = \(table.sqlIdentifier)."_key") WHERE "_key" IN (\(waiting))
                """).execute([.text(table), .text(column)])
            try connection.statement("""
                DELETE FROM \(qualifiedTable) WHERE "table" = \(p(1)) AND "column" = \(p(2)) AND "key" IN (SELECT "_key" FROM \(table.sqlIdentifier))
                """).execute([.text(table), .text(column)])
        }
    }

    /// Drops the temporary table (positions still waiting point at rows that were never written).
    package func drop() throws {
        guard isCreated else { return }
        try connection.execute("DROP TABLE \(qualifiedTable)")
        isCreated = false
    }

    private func create() throws {
        guard !isCreated else { return }
        let key = dialect.keyReferenceColumnType
        try connection.execute("""
            CREATE TEMP TABLE IF NOT EXISTS \(Self.table.sqlIdentifier) ("table" TEXT NOT NULL, "column" TEXT NOT NULL, \
            "key" \(key) NOT NULL, "position" \(key) NOT NULL, PRIMARY KEY ("table", "column", "key"))
            """)
        isCreated = true
    }
}
