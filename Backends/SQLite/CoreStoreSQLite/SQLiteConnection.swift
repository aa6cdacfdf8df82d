import Foundation
import CoreStoreSQL
import CSQLite
import CoreStoreStorage

/// One connection to a database file, with its prepared-statement cache and the framework's
/// SQL functions and collations registered.
///
/// Not thread-safe: the store hands a connection to one thread at a time (the writer under the
/// write lock, readers through `SQLConnectionPool`).
final class SQLiteConnection {
    let handle: OpaquePointer
    let path: String
    let functions: SQLiteFunctions
    private var statements: [String: SQLiteStatement] = [:]
    /// The statements of ``SQLiteHeldStatement``, by position, prepared on first use.
    private var heldStatements = [SQLiteStatement?](repeating: nil, count: SQLiteHeldStatement.allCases.count)
    /// The counters this connection's last commit stored (see ``SQLiteCommittedCounters``).
    var committedCounters: SQLiteCommittedCounters?

    /// Opens `path` with `flags` (`SQLITE_OPEN_READONLY`, or `READWRITE | CREATE`).
    init(path: String, flags: Int32, schema: StoreSchema) throws {
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw StorageError.engine(code: Int(rc), message: "cannot open \(path): \(message)")
        }
        self.handle = db
        self.path = path
        self.functions = SQLiteFunctions(schema: schema)
        sqlite3_extended_result_codes(db, 1)
        do {
            try functions.register(on: db)
        } catch {
            sqlite3_close_v2(db)
            throw error
        }
    }

    deinit {
        statements.removeAll()
        heldStatements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// A cached prepared statement for `sql`.
    func statement(_ sql: String) throws -> SQLiteStatement {
        if let cached = statements[sql] { return cached }
        let statement = try SQLiteStatement(connection: self, sql: sql)
        if statements.count >= 256 { statements.removeAll(keepingCapacity: true) }
        statements[sql] = statement
        return statement
    }

    /// The held statement `held`, prepared on its first use.
    func statement(_ held: SQLiteHeldStatement) throws -> SQLiteStatement {
        if let statement = heldStatements[held.rawValue] { return statement }
        let statement = try SQLiteStatement(connection: self, sql: held.sql)
        heldStatements[held.rawValue] = statement
        return statement
    }

    /// The number of rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int { Int(sqlite3_changes64(handle)) }

    /// Runs one or more statements without parameters (DDL, pragmas).
    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        guard rc == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw error(rc, context: text)
        }
    }

    /// The first column of the first row of `sql`.
    func scalar(_ sql: String, _ values: [SQLValue] = []) throws -> SQLValue {
        let statement = try statement(sql)
        var result = SQLValue.null
        try statement.query(values) { row in
            if case .null = result { result = row.column(0) }
        }
        return result
    }

    /// How a transaction of ``transaction(_:_:)`` begins.
    enum TransactionKind {
        /// Takes the write lock at once (`BEGIN IMMEDIATE`).
        case immediate
        /// Reads until the first write (`BEGIN DEFERRED`).
        case deferred
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        try statement(kind == .immediate ? .beginImmediate : .beginDeferred).execute()
        do {
            let result = try body()
            try statement(.commit).execute()
            return result
        } catch {
            if sqlite3_get_autocommit(handle) == 0 {
                try? statement(.rollback).execute()
            }
            throw error
        }
    }

    /// A ``StorageError`` for a failed call, with SQLite's own message.
    func error(_ code: Int32, context: String) -> StorageError {
        let message = String(cString: sqlite3_errmsg(handle))
        switch code & 0xff {
        case SQLITE_NOTADB:
            return .incompatibleStore(path: path, reason: "the file is not a SQLite database")
        case SQLITE_CORRUPT:
            return .incompatibleStore(path: path, reason: "the database is damaged (\(message))")
        case SQLITE_FULL:
            return .engine(code: Int(code), message: "the disk is full while \(context): \(message)")
        default:
            return .engine(code: Int(code), message: "\(message) (while \(context))")
        }
    }
}
