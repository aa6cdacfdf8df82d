import CoreStoreSQL
import CoreStoreStorage

extension PostgresConnection: SQLConnection {
    /// Runs `sql`, a read of the shared SQL layer (records, counts, aggregates), with results
    /// in the binary format (``PostgresBinaryValue``). PostgreSQL has no fallback tests
    /// (``PostgresDialect``), so a statement never has leaves.
    func query(_ sql: String, parameters: [SQLValue], leaves: [SQLFallbackLeaf], _ row: (any SQLRow) throws -> Void) throws {
        guard leaves.isEmpty else {
            throw StorageError.invalidRequest("a PostgreSQL statement cannot call back into the predicate evaluator")
        }
        try statement(sql).query(parameters, binaryResults: true) { try row($0) }
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

    /// `numeric_value_out_of_range` (22003): a double sum whose running total overflows, or an
    /// average that underflows to zero, where the reference arithmetic goes on to infinity or
    /// zero (``PostgresDialect/exactDoubleAggregate(average:key:column:)``). Integer sums never
    /// fail: beyond 64 bits they come back as a `numeric`, which the reader hands to the evaluator.
    func abandonedAggregate(_ error: StorageError) -> Bool {
        guard case .engine(let code, _) = error else { return false }
        return code == PostgresSQLState.numericValueOutOfRange
    }

    /// An error aborts PostgreSQL's whole transaction: inside one, the aggregate runs in a
    /// savepoint, which a failure rolls back to, so the read can go on to the fallback.
    func attemptingAggregate<T>(_ body: () throws -> T) throws -> T {
        guard isInTransaction else { return try body() }
        try execute("SAVEPOINT corestore_aggregate")
        do {
            let result = try body()
            try execute("RELEASE SAVEPOINT corestore_aggregate")
            return result
        } catch {
            try execute("ROLLBACK TO SAVEPOINT corestore_aggregate")
            try execute("RELEASE SAVEPOINT corestore_aggregate")
            throw error
        }
    }
}
