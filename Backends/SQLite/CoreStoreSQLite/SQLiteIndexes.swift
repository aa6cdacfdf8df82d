import Foundation
import CoreStoreSQL
import CSQLite
import CoreStoreStorage

/// Creating and inspecting the indexes of a database: a migration builds indexes after its
/// rows are in place, and keeps the ones that do not change.
enum SQLiteIndexes {
    /// Creates `index`. A unique index that the rows violate throws
    /// `StorageError.uniqueConstraintViolation` with the first duplicated values.
    static func create(_ index: SQLIndexDefinition, on connection: SQLiteConnection) throws {
        do {
            try connection.execute(index.sql)
        } catch let error as StorageError {
            guard let constraint = index.uniqueConstraint, case .engine(let code, _) = error, Int32(code) & 0xff == SQLITE_CONSTRAINT else { throw error }
            throw try violation(of: constraint, in: index.table, on: connection) ?? error
        }
    }

    /// The first values held by more than one row of `constraint`'s rows (rows with a `NULL`
    /// among them never clash, as in a unique index), as a violation; `nil` when none are.
    static func violation(of constraint: SQLIndexDefinition.UniqueConstraint, in table: String, on connection: SQLiteConnection) throws -> StorageError? {
        let columns = constraint.columns.map(\.sqlIdentifier).joined(separator: ", ")
        var conditions = constraint.columns.map { "\($0.sqlIdentifier) IS NOT NULL" }
        if let filter = constraint.kindFilter { conditions.append(filter) }
        let sql = "SELECT \(columns) FROM \(table.sqlIdentifier) WHERE \(conditions.joined(separator: " AND ")) GROUP BY \(columns) HAVING count(*) > 1 LIMIT 1"
        var values: [Value]?
        try connection.statement(sql).query { row in
            values = try constraint.types.enumerated().map { try row.value(Int32($0), as: $1) }
        }
        return values.map { .uniqueConstraintViolation(entity: constraint.entity, attributes: constraint.attributes, values: $0) }
    }

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
