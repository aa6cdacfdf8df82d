import Foundation
import GRDBSQLite

/// The physical limit for SQLite: the benchmark entity in one table, driven through the SQLite C
/// API alone (prepared statements, explicit transactions, no object layer).
///
/// Same settings and indexes as CoreStore's SQLite backend: WAL journal, `synchronous=NORMAL`,
/// an 8 MiB page cache (`SQLiteStore.defaultPageCacheSize`), the implicit rowid as the table's key, and indexes on `id` and `age`. Dates are stored as
/// REAL seconds since 1970.
final class RawSQLiteSubject: BenchmarkSubject {
    /// The open connection, closed in `deinit`.
    private let connection: OpaquePointer
    private let begin: RawSQLiteStatement
    private let commit: RawSQLiteStatement
    private let rollback: RawSQLiteStatement

    private static let schema = """
        CREATE TABLE item (
            id INTEGER NOT NULL, name TEXT NOT NULL, age INTEGER NOT NULL,
            score REAL NOT NULL, created REAL NOT NULL);
        CREATE INDEX item_id ON item(id);
        CREATE INDEX item_age ON item(age);
        """
    private static let selectItems = "SELECT id, name, age, score, created FROM item"
    private static let insertItem = "INSERT INTO item (id, name, age, score, created) VALUES (?, ?, ?, ?, ?)"

    /// Creates `directory/raw.sqlite` with the `item` table and its indexes.
    init(directory: URL) throws {
        let path = directory.appendingPathComponent("raw.sqlite").path
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
        guard let handle = opened else {
            throw RawEngineError(message: "sqlite3_open_v2(\(path)) failed with code \(code)")
        }
        do {
            guard code == SQLITE_OK else { throw sqliteError(handle) }
            let walPragma = try RawSQLiteStatement("PRAGMA journal_mode=WAL", on: handle)
            var journalMode = ""
            try walPragma.forEachRow { journalMode = walPragma.text(at: 0) }
            guard journalMode == "wal" else {
                throw RawEngineError(message: "\(path): could not switch to WAL")
            }
            try execute("PRAGMA synchronous=NORMAL", on: handle)
            try execute("PRAGMA cache_size=-8192", on: handle)
            try execute(Self.schema, on: handle)
            begin = try RawSQLiteStatement("BEGIN", on: handle)
            commit = try RawSQLiteStatement("COMMIT", on: handle)
            rollback = try RawSQLiteStatement("ROLLBACK", on: handle)
        } catch {
            // Statements already prepared are finalized as they go; close_v2 waits for them.
            sqlite3_close_v2(handle)
            throw error
        }
        connection = handle
    }

    deinit {
        // `close_v2` defers the close until the cached statements (released right after this
        // body) are finalized.
        sqlite3_close_v2(connection)
    }

    // MARK: Workloads

    func insert(_ rows: [BenchRow]) throws {
        let statement = try RawSQLiteStatement(Self.insertItem, on: connection)
        try inTransaction {
            for row in rows {
                try statement.bind(row)
                try statement.run()
            }
        }
    }

    func fetchAll() throws -> Checksum {
        let statement = try RawSQLiteStatement(Self.selectItems, on: connection)
        var checksum = Checksum()
        try statement.forEachRow { statement.addRow(to: &checksum) }
        return checksum
    }

    func fetch(age: Int) throws -> Checksum {
        let statement = try RawSQLiteStatement("\(Self.selectItems) WHERE age = ?", on: connection)
        try statement.bind(Int64(age), at: 1)
        var checksum = Checksum()
        try statement.forEachRow { statement.addRow(to: &checksum) }
        return checksum
    }

    func fetchTopScores(in range: ClosedRange<Double>, limit: Int) throws -> Checksum {
        let sql = "\(Self.selectItems) WHERE score BETWEEN ? AND ? ORDER BY score DESC, id ASC LIMIT ?"
        let statement = try RawSQLiteStatement(sql, on: connection)
        try statement.bind(range.lowerBound, at: 1)
        try statement.bind(range.upperBound, at: 2)
        try statement.bind(Int64(limit), at: 3)
        var checksum = Checksum()
        var position: Int64 = 0
        try statement.forEachRow {
            position += 1
            statement.addRow(to: &checksum, position: position)
        }
        return checksum
    }

    func aggregate() throws -> Checksum {
        var checksum = Checksum()
        let totals = try RawSQLiteStatement("SELECT COUNT(*), SUM(score) FROM item", on: connection)
        try totals.forEachRow {
            checksum.add(totals.int64(at: 0))
            checksum.add(Int64(totals.double(at: 1)))
        }
        let groups = try RawSQLiteStatement(
            "SELECT age, COUNT(*), SUM(score) FROM item GROUP BY age ORDER BY age", on: connection)
        try groups.forEachRow {
            checksum.add(aggregateGroupChecksum(
                age: Int(groups.int64(at: 0)), count: Int(groups.int64(at: 1)), scoreSum: groups.double(at: 2)))
        }
        return checksum
    }

    func countPerAgeAndHighestID() throws -> Checksum {
        var counts: [(age: Int, count: Int)] = []
        let groups = try RawSQLiteStatement("SELECT age, COUNT(age) FROM item GROUP BY age ORDER BY age", on: connection)
        try groups.forEachRow { counts.append((Int(groups.int64(at: 0)), Int(groups.int64(at: 1)))) }
        var highest: Int64?
        let maximum = try RawSQLiteStatement("SELECT COALESCE(MAX(id), -1) FROM item", on: connection)
        try maximum.forEachRow { highest = maximum.int64(at: 0) }
        return countPerAgeChecksum(counts, highestID: highest)
    }

    func update(ids: Range<Int64>) throws {
        let statement = try RawSQLiteStatement(
            "UPDATE item SET score = score + 1, age = (age + 1) % 100 WHERE id = ?", on: connection)
        try inTransaction {
            for id in ids {
                try statement.bind(id, at: 1)
                try statement.run()
            }
        }
    }

    func delete(ids: Range<Int64>) throws {
        let statement = try RawSQLiteStatement("DELETE FROM item WHERE id >= ? AND id < ?", on: connection)
        try statement.bind(ids.lowerBound, at: 1)
        try statement.bind(ids.upperBound, at: 2)
        try inTransaction { try statement.run() }
    }

    func monitoredUpdates(_ updates: [(id: Int64, score: Double)]) throws -> [Duration] {
        let statement = try RawSQLiteStatement("UPDATE item SET score = ? WHERE id = ?", on: connection)
        let clock = ContinuousClock()
        return try updates.map { update in
            try clock.measure {
                try inTransaction {
                    try statement.bind(update.score, at: 1)
                    try statement.bind(update.id, at: 2)
                    try statement.run()
                }
            }
        }
    }

    func importUnique(_ rows: [BenchRow]) throws {
        let update = try RawSQLiteStatement("UPDATE item SET name = ?, age = ?, score = ?, created = ? WHERE id = ?", on: connection)
        let insert = try RawSQLiteStatement(Self.insertItem, on: connection)
        try inTransaction {
            for row in rows {
                try update.bind(row.name, at: 1)
                try update.bind(Int64(row.age), at: 2)
                try update.bind(row.score, at: 3)
                try update.bind(row.created.timeIntervalSince1970, at: 4)
                try update.bind(row.id, at: 5)
                try update.run()
                if sqlite3_changes(connection) == 0 {
                    try insert.bind(row)
                    try insert.run()
                }
            }
        }
    }

    func insertEach(_ rows: [BenchRow]) throws {
        let statement = try RawSQLiteStatement(Self.insertItem, on: connection)
        for row in rows {
            try inTransaction {
                try statement.bind(row)
                try statement.run()
            }
        }
    }

    // MARK: Helpers

    /// Runs `body` between `BEGIN` and `COMMIT`, rolling back if anything in it throws.
    private func inTransaction(_ body: () throws -> Void) throws {
        try begin.run()
        do {
            try body()
            try commit.run()
        } catch {
            try? rollback.run()
            throw error
        }
    }
}

/// The "destructor" that makes SQLite copy bound text at once: the C macro `SQLITE_TRANSIENT`,
/// which Swift does not import.
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// The connection's latest error, as a Swift error.
private func sqliteError(_ connection: OpaquePointer) -> RawEngineError {
    RawEngineError(message: "SQLite error \(sqlite3_errcode(connection)): \(String(cString: sqlite3_errmsg(connection)))")
}

/// Runs `sql` (possibly several statements, results ignored) on `connection`.
private func execute(_ sql: String, on connection: OpaquePointer) throws {
    guard sqlite3_exec(connection, sql, nil, nil, nil) == SQLITE_OK else { throw sqliteError(connection) }
}

/// One prepared statement of a raw SQLite connection, finalized when released.
private final class RawSQLiteStatement {
    private let handle: OpaquePointer
    private let connection: OpaquePointer

    /// Compiles `sql` (a single statement) on `connection`.
    init(_ sql: String, on connection: OpaquePointer) throws {
        var prepared: OpaquePointer?
        guard sqlite3_prepare_v2(connection, sql, -1, &prepared, nil) == SQLITE_OK, let prepared else {
            throw sqliteError(connection)
        }
        handle = prepared
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Turns a failing result code into the connection's error.
    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else { throw sqliteError(connection) }
    }

    func bind(_ value: Int64, at index: Int32) throws {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    func bind(_ value: Double, at index: Int32) throws {
        try check(sqlite3_bind_double(handle, index, value))
    }

    func bind(_ value: String, at index: Int32) throws {
        try check(sqlite3_bind_text(handle, index, value, -1, sqliteTransient))
    }

    /// Binds the five columns of `row`, in the order of the `item` table.
    func bind(_ row: BenchRow) throws {
        try bind(row.id, at: 1)
        try bind(row.name, at: 2)
        try bind(Int64(row.age), at: 3)
        try bind(row.score, at: 4)
        try bind(row.created.timeIntervalSince1970, at: 5)
    }

    /// Advances once: true when a row is available, false when the statement is done.
    func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw sqliteError(connection)
        }
    }

    /// Runs a statement without results to completion, then resets it for its next use.
    func run() throws {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Calls `body` on each result row (read it with the column accessors), then resets.
    func forEachRow(_ body: () throws -> Void) throws {
        defer { sqlite3_reset(handle) }
        while try step() { try body() }
    }

    func int64(at index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    func double(at index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    func text(at index: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// Reads the current row of a `SELECT id, name, age, score, created` into `checksum`.
    func addRow(to checksum: inout Checksum, position: Int64 = 1) {
        checksum.add(
            id: int64(at: 0), name: text(at: 1), age: Int(int64(at: 2)),
            score: double(at: 3), created: double(at: 4), position: position)
    }
}
