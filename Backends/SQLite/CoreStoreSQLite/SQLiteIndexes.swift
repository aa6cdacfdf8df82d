import Foundation
import CoreStoreSQL
import CSQLite
import CoreStoreStorage

/// Inspecting the indexes of a database: a migration in place keeps the ones that do not
/// change (creating them is `SQLIndexDefinition.create(on:)`'s).
enum SQLiteIndexes {
    /// An index as SQLite keeps it.
    struct Existing {
        let name: String
        let table: String
        let sql: String
    }

    /// The indexes on `tables` that were created by a statement (not those SQLite makes for
    /// primary keys).
    static func existing(on connection: SQLiteConnection, tables: Set<String>) throws -> [Existing] {
        var result: [Existing] = []
        try connection.statement("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").query { row in
            guard let name = row.text(0), let table = row.text(1), let sql = row.text(2), tables.contains(table) else { return }
            result.append(Existing(name: name, table: table, sql: sql))
        }
        return result
    }

    /// The columns the index `name` covers.
    static func columns(of name: String, on connection: SQLiteConnection) throws -> [String] {
        var columns: [String] = []
        try connection.statement("SELECT name FROM pragma_index_info(?1)").query([.text(name)]) { row in
            if let column = row.text(0) { columns.append(column) }
        }
        return columns
    }
}
