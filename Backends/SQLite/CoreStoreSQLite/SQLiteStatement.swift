import Foundation
import CoreStoreSQL
import CSQLite
import CoreStoreStorage

/// A prepared statement of one ``SQLiteConnection``, reused through the connection's cache.
///
/// Not thread-safe: used only by the thread that holds its connection.
final class SQLiteStatement {
    let handle: OpaquePointer
    let sql: String
    private unowned let connection: SQLiteConnection
    /// Where the short texts and blobs of the current run are kept while SQLite reads them.
    private let boundBytes = SQLiteBoundBytes()

    init(connection: SQLiteConnection, sql: String) throws {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw connection.error(rc, context: "preparing \(sql)")
        }
        self.handle = statement
        self.sql = sql
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Binds `values` to the parameters `?1…?n`, after clearing the previous run.
    func bind(_ values: [SQLValue]) throws {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        boundBytes.startRun()
        for (i, value) in values.enumerated() {
            try bind(value, at: Int32(i + 1))
        }
    }

    /// Ends the previous run so that parameters can be bound one by one with
    /// ``bind(_:at:)``. Every parameter must then be bound: earlier bindings are kept.
    func reset() {
        sqlite3_reset(handle)
        boundBytes.startRun()
    }

    /// Binds `value` to parameter `?index` (1-based), without the array ``bind(_:)`` needs.
    func bind(_ value: SQLValue, at index: Int32) throws {
        let rc: Int32
        switch value {
        case .null:
            rc = sqlite3_bind_null(handle, index)
        case .integer(let v):
            rc = sqlite3_bind_int64(handle, index, v)
        case .real(let v):
            rc = sqlite3_bind_double(handle, index, v)
        case .text(let s):
            // Bound with an explicit byte count, so NUL characters are kept.
            var s = s
            rc = s.withUTF8 { buffer in
                let bytes = UnsafeRawBufferPointer(buffer)
                if let copy = boundBytes.copy(bytes) {
                    return sqlite3_bind_text64(handle, index, copy.assumingMemoryBound(to: CChar.self), UInt64(bytes.count), SQLiteStatement.static, UInt8(SQLITE_UTF8))
                }
                // An empty buffer may have no address; SQLite needs one for an empty text.
                return bytes.baseAddress.map { sqlite3_bind_text64(handle, index, $0.assumingMemoryBound(to: CChar.self), UInt64(bytes.count), SQLiteStatement.transient, UInt8(SQLITE_UTF8)) }
                    ?? sqlite3_bind_text(handle, index, "", 0, SQLiteStatement.transient)
            }
        case .blob(let data):
            if data.isEmpty {
                rc = sqlite3_bind_zeroblob(handle, index, 0)
            } else {
                rc = data.withUnsafeBytes { bytes in
                    if let copy = boundBytes.copy(bytes) {
                        return sqlite3_bind_blob64(handle, index, copy, UInt64(bytes.count), SQLiteStatement.static)
                    }
                    return sqlite3_bind_blob64(handle, index, bytes.baseAddress, UInt64(bytes.count), SQLiteStatement.transient)
                }
            }
        }
        guard rc == SQLITE_OK else { throw connection.error(rc, context: "binding parameter \(index) of \(sql)") }
    }

    /// Runs the statement to completion with the parameters bound so far, ignoring any rows.
    func run() throws {
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Advances to the next row; `false` when the statement is done.
    func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = connection.error(rc, context: "running \(sql.statementExcerpt)")
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs the statement to completion with `values`, ignoring any rows.
    func execute(_ values: [SQLValue] = []) throws {
        try bind(values)
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Runs the statement with `values` and calls `row` for each result row.
    func query(_ values: [SQLValue] = [], _ row: (SQLiteStatement) throws -> Void) throws {
        try bind(values)
        defer { sqlite3_reset(handle) }
        while try step() { try row(self) }
    }

    /// The value of column `index` of the current row.
    func column(_ index: Int32) -> SQLValue {
        // One lookup of the cell, then `sqlite3_value_…` reads (see ``value(_:as:)``).
        let cell = sqlite3_column_value(handle, index)
        return SQLiteStatement.value(type: sqlite3_value_type(cell),
                                     integer: { sqlite3_value_int64(cell) },
                                     real: { sqlite3_value_double(cell) },
                                     bytes: { (sqlite3_value_blob(cell), Int(sqlite3_value_bytes(cell))) },
                                     text: { (sqlite3_value_text(cell).map(UnsafeRawPointer.init), Int(sqlite3_value_bytes(cell))) })
    }

    /// The integer in column `index` of the current row.
    func int64(_ index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// The integer in column `index` of the current row, or `nil` when it holds no integer.
    func integer(_ index: Int32) -> Int64? {
        let cell = sqlite3_column_value(handle, index)
        return sqlite3_value_type(cell) == SQLITE_INTEGER ? sqlite3_value_int64(cell) : nil
    }

    /// Whether column `index` of the current row is the text `text`, compared byte for byte
    /// without making a string.
    func textEquals(_ index: Int32, _ text: String) -> Bool {
        let cell = sqlite3_column_value(handle, index)
        guard sqlite3_value_type(cell) == SQLITE_TEXT else { return false }
        let pointer = sqlite3_value_text(cell)
        let count = Int(sqlite3_value_bytes(cell))
        var text = text
        return text.withUTF8 { utf8 in
            guard utf8.count == count else { return false }
            guard count > 0, let pointer, let base = utf8.baseAddress else { return true }
            return memcmp(base, pointer, count) == 0
        }
    }

    /// The attribute value in column `index` of the current row, decoded as a column of `type`
    /// holds it (see ``SQLiteValueCodec``).
    ///
    /// The common storage classes are read directly; everything else goes through
    /// ``SQLiteValueCodec/decode(_:as:)``, which also reports unexpected values.
    ///
    /// The cell is found once (`sqlite3_column_value`) and then read with the `sqlite3_value_…`
    /// functions: each `sqlite3_column_…` call looks the column up again and runs SQLite's
    /// API-exit bookkeeping, which cost more than the read itself (W2's 100,000 rows: 514.1M →
    /// 484.4M instructions). SQLite calls such a cell "unprotected" because no mutex
    /// guards it; the connection is opened without mutexes (`SQLITE_OPEN_NOMUTEX`) and used by
    /// one thread at a time, so no cell this reads is guarded either way.
    func value(_ index: Int32, as type: AttributeType) throws -> Value {
        let cell = sqlite3_column_value(handle, index)
        let storage = sqlite3_value_type(cell)
        switch type {
        case .integer where storage == SQLITE_INTEGER:
            return .int(sqlite3_value_int64(cell))
        case .bool where storage == SQLITE_INTEGER:
            return .bool(sqlite3_value_int64(cell) != 0)
        case .double where storage == SQLITE_FLOAT:
            return .double(sqlite3_value_double(cell))
        case .date where storage == SQLITE_FLOAT:
            return .date(Date(timeIntervalSinceReferenceDate: sqlite3_value_double(cell)))
        case .string where storage == SQLITE_TEXT, .url where storage == SQLITE_TEXT:
            // Text first, then its byte count, as SQLite documents.
            let pointer = sqlite3_value_text(cell)
            let count = Int(sqlite3_value_bytes(cell))
            guard let pointer, count > 0 else { return .string("") }
            return .string(StoredText.repaired(UnsafeRawBufferPointer(start: pointer, count: count)))
        default:
            if storage == SQLITE_NULL { return .null }
            return try SQLiteValueCodec.decode(column(index), as: type)
        }
    }

    /// The text in column `index` of the current row, or `nil` for NULL.
    func text(_ index: Int32) -> String? {
        if case .text(let s) = column(index) { return s }
        return nil
    }

    /// Decodes an SQLite value given accessors, shared by result columns and function arguments.
    static func value(
        type: Int32, integer: () -> Int64, real: () -> Double,
        bytes: () -> (UnsafeRawPointer?, Int), text: () -> (UnsafeRawPointer?, Int)
    ) -> SQLValue {
        switch type {
        case SQLITE_INTEGER: return .integer(integer())
        case SQLITE_FLOAT: return .real(real())
        case SQLITE_TEXT:
            // Text first, then its byte count, as SQLite documents.
            let (pointer, count) = text()
            guard let pointer, count > 0 else { return .text("") }
            return .text(StoredText.repaired(UnsafeRawBufferPointer(start: pointer, count: count)))
        case SQLITE_BLOB:
            let (pointer, count) = bytes()
            guard let pointer, count > 0 else { return .blob(Data()) }
            return .blob(Data(bytes: pointer, count: count))
        default:
            return .null
        }
    }

    /// SQLite's `SQLITE_TRANSIENT`: it copies bound bytes at once.
    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    /// SQLite's `SQLITE_STATIC`: it reads bound bytes where they are, which must stay unchanged
    /// until they are bound again (``SQLiteBoundBytes`` keeps them).
    static let `static`: sqlite3_destructor_type? = nil
}
