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
    /// savepoint, which an abandoned aggregate (``abandonedAggregate(_:)``) rolls back to, so
    /// the read can go on to the fallback; any other error ends the read, and the transaction
    /// rolls back whole.
    ///
    /// The `SAVEPOINT` goes out with the aggregate's statement, and the `RELEASE` with the
    /// transaction's next statement (or not at all, when the transaction ends first): an
    /// aggregate costs one round trip, as a fetch does, not three.
    func attemptingAggregate<T>(_ body: () throws -> T) throws -> T {
        guard isInTransaction else { return try body() }
        let name = "corestore_aggregate"
        let savepoint = "SAVEPOINT \(name)", release = "RELEASE SAVEPOINT \(name)"
        deferSavepointCommand(savepoint)
        do {
            let result = try body()
            // When `body` sent nothing, the savepoint never reached the server.
            if !withdrawUnsentSavepointCommand(savepoint) { deferSavepointCommand(release) }
            return result
        } catch {
            if withdrawUnsentSavepointCommand(savepoint) { throw error }
            // The aggregate's own statement failed, so the savepoint before it was made.
            if let error = error as? StorageError, abandonedAggregate(error) { try execute("ROLLBACK TO SAVEPOINT \(name); \(release)") }
            throw error
        }
    }
}
