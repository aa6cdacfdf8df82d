import CoreStoreSQL
import CoreStoreStorage

extension PostgresConnection: SQLConnection {
    /// Runs `sql`. PostgreSQL has no fallback tests (``PostgresDialect``), so a statement never
    /// has leaves.
    func query(_ sql: String, parameters: [SQLValue], leaves: [SQLFallbackLeaf], _ row: (any SQLRow) throws -> Void) throws {
        guard leaves.isEmpty else {
            throw StorageError.invalidRequest("a PostgreSQL statement cannot call back into the predicate evaluator")
        }
        try statement(sql).query(parameters) { try row($0) }
    }

    /// `unique_violation` (23505) on the primary key (`…_pkey`) or on a unique index, which the
    /// server names.
    func constraintViolation(in error: StorageError) -> SQLConstraintViolation? {
        guard case .engine(let code, let message) = error, code == PostgresSQLState.uniqueViolation else { return nil }
        if message.contains("_pkey\"") { return .primaryKey }
        // `duplicate key value violates unique constraint "NAME"`
        guard let start = message.range(of: "constraint \"") else { return .unique(index: nil) }
        let rest = message[start.upperBound...]
        return .unique(index: rest.firstIndex(of: "\"").map { String(rest[..<$0]) })
    }

    /// Nothing to retry: an error aborts PostgreSQL's transaction, so the dialect avoids every
    /// aggregate the server could fail on (a sum beyond 64 bits comes back as a `numeric`).
    func abandonedAggregate(_ error: StorageError) -> Bool { false }
}
