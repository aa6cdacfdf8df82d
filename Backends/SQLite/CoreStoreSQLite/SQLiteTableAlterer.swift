import Foundation
import CoreStoreSQL
import CoreStoreStorage

/// Carries out a ``SQLiteAlterationPlan`` on the connection, inside the migration's transaction.
///
/// In order: drops the indexes that change (or cover a column that is dropped, renamed or
/// filled), drops columns, renames columns (through temporary names, so that swaps and chains
/// never collide), adds columns, replaces `NULL`s, clears columns other entities no longer
/// read, and creates the destination's missing indexes. Adding a column with a constant is
/// `ADD COLUMN … DEFAULT <literal>`, which SQLite does without touching a row; only when SQLite
/// would not give back the exact value from the literal are the rows updated one by one.
struct SQLiteTableAlterer {
    let connection: SQLiteConnection

    /// Applies `plan`, leaving the tables and indexes of `destination` (a mapping without prefix).
    func apply(_ plan: SQLiteAlterationPlan, destination: SQLSchemaMapping) throws {
        let desired = Dictionary(destination.indexes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let touched = Dictionary(plan.tables.map { ($0.table, $0.touchedColumns) }, uniquingKeysWith: { first, _ in first })
        var kept: Set<String> = []
        for index in try SQLiteIndexes.existing(on: connection, tables: Set(destination.allTables)) {
            let columns = try SQLiteIndexes.columns(of: index.name, on: connection)
            if desired[index.name]?.sql == index.sql, touched[index.table, default: []].isDisjoint(with: columns) {
                kept.insert(index.name)
            } else {
                try connection.execute("DROP INDEX \(index.name.sqlIdentifier)")
            }
        }
        for table in plan.tables { try alter(table) }
        for index in destination.indexes where !kept.contains(index.name) {
            try index.create(on: connection)
        }
    }

    private func alter(_ changes: SQLiteAlterationPlan.TableChanges) throws {
        let table = changes.table.sqlIdentifier
        for column in changes.drops {
            try connection.execute("ALTER TABLE \(table) DROP COLUMN \(column.sqlIdentifier)")
        }
        let temporary = changes.renames.indices.map { "corestore_renaming_\($0)" }
        for (rename, name) in zip(changes.renames, temporary) {
            try connection.execute("ALTER TABLE \(table) RENAME COLUMN \(rename.from.sqlIdentifier) TO \(name.sqlIdentifier)")
        }
        for (rename, name) in zip(changes.renames, temporary) {
            try connection.execute("ALTER TABLE \(table) RENAME COLUMN \(name.sqlIdentifier) TO \(rename.to.sqlIdentifier)")
        }
        for addition in changes.additions { try add(addition, to: changes.table) }
        for fill in changes.nullReplacements {
            let kinds = fill.kinds.map { " AND " + Self.kindTest($0) } ?? ""
            try connection.statement("UPDATE \(table) SET \(fill.column.sqlIdentifier) = ?1 WHERE \(fill.column.sqlIdentifier) IS NULL\(kinds)")
                .execute([fill.value])
        }
        for clear in changes.clears {
            let others = clear.kinds.map { $0.isEmpty ? "" : " AND NOT " + Self.kindTest($0) } ?? ""
            try connection.execute("UPDATE \(table) SET \(clear.column.sqlIdentifier) = NULL WHERE \(clear.column.sqlIdentifier) IS NOT NULL\(others)")
        }
    }

    /// Adds a column whose rows of `addition.kinds` all hold `addition.value`.
    private func add(_ addition: SQLiteAlterationPlan.Addition, to tableName: String) throws {
        let table = tableName.sqlIdentifier
        let column = addition.column.sqlIdentifier
        let declaration = "\(column) \(addition.definition)".trimmingCharacters(in: .whitespaces)
        let kinds = addition.kinds.map { " WHERE " + Self.kindTest($0) } ?? ""
        if addition.value == .null {
            try connection.execute("ALTER TABLE \(table) ADD COLUMN \(declaration)")
            return
        }
        if let literal = addition.value.sqlLiteral {
            try connection.execute("ALTER TABLE \(table) ADD COLUMN \(declaration) DEFAULT \(literal)")
            var stored: SQLValue?
            try connection.statement("SELECT \(column) FROM \(table)\(kinds) LIMIT 1").query { stored = $0.column(0) }
            // No row, or SQLite reads the literal back exactly: done without writing a row.
            guard let stored, !stored.isIdentical(to: addition.value) else { return }
        } else {
            try connection.execute("ALTER TABLE \(table) ADD COLUMN \(declaration)")
        }
        try connection.statement("UPDATE \(table) SET \(column) = ?1\(kinds)").execute([addition.value])
    }

    /// `"_entity" IN (…)`.
    private static func kindTest(_ kinds: [String]) -> String {
        "\"_entity\" IN (\(kinds.map(\.sqlLiteral).joined(separator: ", ")))"
    }
}
