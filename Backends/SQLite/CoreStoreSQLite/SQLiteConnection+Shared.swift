import CoreStoreSQL
import CoreStoreStorage

/// The shared SQL reader and writer on SQLite connections.
typealias SQLiteReader = SQLReader<SQLiteConnection>
typealias SQLiteWriter = SQLWriter<SQLiteConnection>

extension SQLiteConnection: SQLConnection {
    /// Runs `sql`, with its `corestore_test` leaves installed; an error a function raised while
    /// it ran is rethrown as it is.
    func query(_ sql: String, parameters: [SQLValue], leaves: [SQLFallbackLeaf], _ row: (any SQLRow) throws -> Void) throws {
        functions.leaves = leaves
        functions.pendingError = nil
        defer { functions.leaves = [] }
        do {
            try statement(sql).query(parameters) { try row($0) }
        } catch {
            if let pending = functions.pendingError { throw pending }
            throw error
        }
    }

    /// SQLite's extended result codes `SQLITE_CONSTRAINT_PRIMARYKEY` and `SQLITE_CONSTRAINT_UNIQUE`
    /// (C macros that Swift does not import).
    static let constraintPrimaryKey = 1555
    static let constraintUnique = 2067

    func constraintViolation(in error: StorageError) -> SQLConstraintViolation? {
        guard case .engine(let code, _) = error else { return nil }
        switch code {
        case Self.constraintPrimaryKey: return .primaryKey
        case Self.constraintUnique: return .unique(index: nil)
        default: return nil
        }
    }

    /// SQLite's `sum()` stops on an integer overflow, and the double aggregates stop on a value
    /// the codec would reject (``SQLiteFunctions/fallbackMessage``).
    func abandonedAggregate(_ error: StorageError) -> Bool {
        guard case .engine(_, let message) = error else { return false }
        return message.contains("integer overflow") || message.contains(SQLiteFunctions.fallbackMessage)
    }
}

extension SQLiteStatement: SQLStatement, SQLRow {}
