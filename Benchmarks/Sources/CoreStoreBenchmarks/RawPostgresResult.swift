import BenchPostgres

/// The result of one statement of the raw PostgreSQL baseline, its columns in binary format;
/// cleared when released.
final class RawPostgresResult {
    private let handle: OpaquePointer

    init(_ handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        PQclear(handle)
    }

    /// The number of result rows.
    var count: Int32 { PQntuples(handle) }

    /// The rows an INSERT, UPDATE or DELETE changed.
    var changedRows: Int { Int(String(cString: PQcmdTuples(handle))) ?? 0 }

    /// An `int8` column (0 when NULL).
    func int64(_ row: Int32, _ column: Int32) -> Int64 {
        guard PQgetisnull(handle, row, column) == 0, let value = PQgetvalue(handle, row, column) else { return 0 }
        return Int64(bigEndian: UnsafeRawPointer(value).loadUnaligned(as: Int64.self))
    }

    /// A `float8` column (0 when NULL).
    func double(_ row: Int32, _ column: Int32) -> Double {
        guard PQgetisnull(handle, row, column) == 0, let value = PQgetvalue(handle, row, column) else { return 0 }
        return Double(bitPattern: UInt64(bigEndian: UnsafeRawPointer(value).loadUnaligned(as: UInt64.self)))
    }

    /// A `text` column ("" when NULL).
    func text(_ row: Int32, _ column: Int32) -> String {
        guard let value = PQgetvalue(handle, row, column) else { return "" }
        let length = Int(PQgetlength(handle, row, column))
        return String(decoding: UnsafeRawBufferPointer(start: value, count: length), as: UTF8.self)
    }

    /// Reads row `row` of a `SELECT id, name, age, score, created` into `checksum`.
    func addRow(_ row: Int32, to checksum: inout Checksum, position: Int64 = 1) {
        checksum.add(
            id: int64(row, 0), name: text(row, 1), age: Int(int64(row, 2)),
            score: double(row, 3), created: double(row, 4), position: position)
    }
}
