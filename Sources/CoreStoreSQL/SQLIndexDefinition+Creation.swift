import Foundation
import CoreStoreStorage

extension SQLIndexDefinition {
    /// Creates the index inside the connection's transaction. A unique index that the rows
    /// violate throws `StorageError.uniqueConstraintViolation` with the first duplicated values,
    /// and leaves the transaction usable (the attempt runs in a savepoint: PostgreSQL refuses
    /// every statement of a transaction after an error).
    package func create<Connection: SQLConnection>(on connection: Connection) throws {
        guard let constraint = uniqueConstraint else {
            try connection.execute(sql)
            return
        }
        try connection.execute("SAVEPOINT corestore_unique_index")
        do {
            try connection.execute(sql)
        } catch let error as StorageError {
            try connection.execute("ROLLBACK TO SAVEPOINT corestore_unique_index")
            try connection.execute("RELEASE SAVEPOINT corestore_unique_index")
            guard case .unique = connection.constraintViolation(in: error) else { throw error }
            throw try Self.violation(of: constraint, in: table, on: connection) ?? error
        }
        try connection.execute("RELEASE SAVEPOINT corestore_unique_index")
    }

    /// The first values held by more than one row of `constraint`'s rows in `table` (rows with a
    /// `NULL` among them never clash, as in a unique index), as a violation; `nil` when none are.
    package static func violation<Connection: SQLConnection>(
        of constraint: UniqueConstraint, in table: String, on connection: Connection
    ) throws -> StorageError? {
        let columns = constraint.columns.map(\.sqlIdentifier).joined(separator: ", ")
        var conditions = constraint.columns.map { "\($0.sqlIdentifier) IS NOT NULL" }
        if let filter = constraint.kindFilter { conditions.append(filter) }
        let sql = "SELECT \(columns) FROM \(table.sqlIdentifier) WHERE \(conditions.joined(separator: " AND ")) GROUP BY \(columns) HAVING count(*) > 1 LIMIT 1"
        var values: [Value]?
        try connection.statement(sql).query([]) { row in
            values = try constraint.types.enumerated().map { try row.value(Int32($0), as: $1) }
        }
        return values.map { .uniqueConstraintViolation(entity: constraint.entity, attributes: constraint.attributes, values: $0) }
    }
}
