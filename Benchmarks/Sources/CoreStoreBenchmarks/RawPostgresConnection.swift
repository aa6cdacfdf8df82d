import BenchPostgres
import Foundation

/// One libpq connection of the raw PostgreSQL baseline: named prepared statements run with
/// binary parameters and binary results, and plain SQL for the rest. Closed in `deinit`.
final class RawPostgresConnection {
    /// The type of a statement's parameter, as its PostgreSQL type OID.
    enum ParameterType: Oid {
        case int8 = 20
        case text = 25
        case float8 = 701
    }

    /// A parameter value, sent in PostgreSQL's binary format.
    enum Value {
        case int8(Int64)
        case float8(Double)
        case text(String)

        /// The bytes of the binary format: big-endian numbers, UTF-8 text.
        fileprivate func append(to bytes: inout [UInt8]) {
            switch self {
            case .int8(let value): withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
            case .float8(let value): withUnsafeBytes(of: value.bitPattern.bigEndian) { bytes.append(contentsOf: $0) }
            case .text(let value): bytes.append(contentsOf: value.utf8)
            }
        }
    }

    private let handle: OpaquePointer

    /// Connects to `url` (a `postgres://` URL or a libpq connection string).
    init(url: String) throws {
        guard let connection = PQconnectdb(url) else {
            throw RawEngineError(message: "PQconnectdb: out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection))
            PQfinish(connection)
            throw RawEngineError(message: "PostgreSQL connection failed: \(message)")
        }
        // Notices (such as those of DROP … CASCADE) would go to standard error.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        handle = connection
    }

    deinit {
        PQfinish(handle)
    }

    /// Runs `sql` (possibly several statements, results ignored).
    func execute(_ sql: String) throws {
        PQclear(try check(PQexec(handle, sql), "\(sql.prefix(60))"))
    }

    /// Prepares `sql` as the statement `name`, its parameters of `types`.
    func prepare(_ name: String, _ sql: String, types: [ParameterType] = []) throws {
        let oids = types.map(\.rawValue)
        PQclear(try check(PQprepare(handle, name, sql, Int32(oids.count), oids), "PREPARE \(name)"))
    }

    /// Runs the prepared statement `name` with `values`; the result has binary columns.
    func run(_ name: String, _ values: [Value] = []) throws -> RawPostgresResult {
        var bytes: [UInt8] = []
        var offsets: [Int] = []
        var lengths: [Int32] = []
        for value in values {
            offsets.append(bytes.count)
            value.append(to: &bytes)
            lengths.append(Int32(bytes.count - offsets.last!))
        }
        // Never empty, so that the base address below is never nil.
        bytes.append(0)
        let formats = [Int32](repeating: 1, count: values.count)
        let result = bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            let pointers: [UnsafePointer<CChar>?] = offsets.map { base + $0 }
            return PQexecPrepared(handle, name, Int32(values.count), pointers, lengths, formats, 1)
        }
        return RawPostgresResult(try check(result, "EXECUTE \(name)"))
    }

    /// Runs the prepared statement `name` and discards its result; returns the rows it changed.
    @discardableResult
    func change(_ name: String, _ values: [Value] = []) throws -> Int {
        try run(name, values).changedRows
    }

    /// `result` if it reports success; otherwise it is cleared and its error thrown.
    private func check(_ result: OpaquePointer?, _ context: String) throws -> OpaquePointer {
        guard let result else {
            throw RawEngineError(message: "PostgreSQL: \(String(cString: PQerrorMessage(handle))) (\(context))")
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            return result
        default:
            let message = String(cString: PQresultErrorMessage(result))
            PQclear(result)
            throw RawEngineError(message: "PostgreSQL: \(message) (\(context))")
        }
    }
}
