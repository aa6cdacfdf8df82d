import Foundation
import CPostgres
import CoreStoreSQL
import CoreStoreStorage

/// A prepared statement of one ``PostgresConnection``.
final class PostgresStatement: SQLStatement {
    let sql: String
    /// Its number on the connection (its server-side name is
    /// ``PostgresConnection/statementName(_:)``); a new one after it was prepared again.
    private var number: Int
    private unowned let connection: PostgresConnection
    /// The parameters bound one by one since ``reset()``.
    private var bound: [SQLValue] = []

    init(connection: PostgresConnection, number: Int, sql: String) {
        self.connection = connection
        self.number = number
        self.sql = sql
    }

    /// The statement's server-side name, after preparing it again if the connection dropped
    /// it meanwhile (its cache was full: see ``PostgresConnection/statement(_:)``).
    private func preparedName() -> String {
        if number <= connection.deallocatedThrough { number = connection.prepare(sql) }
        return PostgresConnection.statementName(number)
    }

    func execute(_ values: [SQLValue] = []) throws {
        PQclear(try connection.run(preparedName(), sql: sql, values))
    }

    /// Runs the statement with `values` as the last of its connection's open transaction: it
    /// goes out with the `COMMIT`, in the same round trip (see
    /// ``PostgresConnection/executeWithCommit(_:sql:_:)``).
    func executeWithCommit(_ values: [SQLValue]) throws {
        try connection.executeWithCommit(preparedName(), sql: sql, values)
    }

    func query(_ values: [SQLValue] = [], _ row: (PostgresRow) throws -> Void) throws {
        try query(values, binaryResults: false, row)
    }

    /// Runs the statement and hands over each row of its result; `binaryResults` asks for the
    /// binary format (see ``PostgresBinaryValue``).
    func query(_ values: [SQLValue], binaryResults: Bool, _ row: (PostgresRow) throws -> Void) throws {
        let result = try connection.run(preparedName(), sql: sql, values, binaryResults: binaryResults)
        defer { PQclear(result) }
        guard let result else { return }
        let count = PQntuples(result)
        let columns = PostgresResultColumns(result: result, connection: connection)
        try withExtendedLifetime(columns) {
            var index: Int32 = 0
            while index < count {
                try row(PostgresRow(result: result, columns: Unmanaged.passUnretained(columns), row: index, isBinary: binaryResults))
                index += 1
            }
        }
    }

    func reset() {
        bound.removeAll(keepingCapacity: true)
    }

    func bind(_ value: SQLValue, at index: Int32) throws {
        let position = Int(index) - 1
        while bound.count <= position { bound.append(.null) }
        bound[position] = value
    }

    func run() throws {
        try execute(bound)
    }
}

/// What the rows of one result share: the connection that ran it (it names the server in
/// messages) and each column's type, read from the result once rather than once per value.
final class PostgresResultColumns {
    /// The connection, which outlives the query that makes the rows.
    unowned(unsafe) let connection: PostgresConnection
    /// The type of each column, by index.
    private let types: [Oid]

    init(result: OpaquePointer, connection: PostgresConnection) {
        self.connection = connection
        types = (0..<PQnfields(result)).map { PQftype(result, $0) }
    }

    /// The type of the column at `index`; 0 (no type) past the last one, as `PQftype` answers.
    @inline(__always)
    func type(_ index: Int32) -> Oid {
        index >= 0 && Int(index) < types.count ? types[Int(index)] : 0
    }
}

/// One row of a result in the text or the binary format, decoded by attribute type as
/// ``PostgresDialect`` writes each one.
///
/// Small enough (three words) to be handed over as an `any SQLRow` without a heap box per row:
/// what the result's rows share, which outlives them, is held unretained.
struct PostgresRow: SQLRow {
    let result: OpaquePointer
    /// The result's connection and column types.
    let columns: Unmanaged<PostgresResultColumns>
    let row: Int32
    /// Whether the result is in the binary format (``PostgresBinaryValue``).
    var isBinary = false

    /// The result is read whole before its rows are handed out.
    var rowsInResult: Int? { Int(PQntuples(result)) }

    /// Where the row comes from, for messages.
    private var location: String { columns._withUnsafeGuaranteedRef { $0.connection.location } }

    private func isNull(_ index: Int32) -> Bool {
        PQgetisnull(result, row, index) != 0
    }

    /// The column's text bytes (valid while the result lives).
    private func bytes(_ index: Int32) -> UnsafeRawBufferPointer {
        let pointer = PQgetvalue(result, row, index)
        return UnsafeRawBufferPointer(start: pointer, count: Int(PQgetlength(result, row, index)))
    }

    private func type(_ index: Int32) -> Oid {
        columns._withUnsafeGuaranteedRef { $0.type(index) }
    }

    func text(_ index: Int32) -> String? {
        if isNull(index) { return nil }
        return isBinary ? binaryText(index) : String(decoding: bytes(index), as: UTF8.self)
    }

    /// The text of a binary-format column: what the text format would have sent.
    private func binaryText(_ index: Int32) -> String {
        let type = type(index), raw = bytes(index)
        if type == PostgresBinaryValue.TypeID.numeric, let text = PostgresBinaryValue.numericText(raw) { return text }
        if let integer = PostgresBinaryValue.integer(raw, type: type) { return String(integer) }
        if let double = PostgresBinaryValue.double(raw, type: type) { return PostgresConnection.text(of: double) }
        return String(decoding: raw, as: UTF8.self)
    }

    func integer(_ index: Int32) -> Int64? {
        if isNull(index) { return nil }
        if isBinary {
            let type = type(index)
            if PostgresBinaryValue.isText(type) { return Int64(binaryText(index)) }
            return PostgresBinaryValue.integer(bytes(index), type: type)
        }
        return text(index).flatMap { Int64($0) }
    }

    func int64(_ index: Int32) -> Int64 {
        integer(index) ?? 0
    }

    func textEquals(_ index: Int32, _ text: String) -> Bool {
        guard !isNull(index) else { return false }
        if isBinary, !PostgresBinaryValue.isText(type(index)) { return binaryText(index) == text }
        let stored = bytes(index)
        var text = text
        return text.withUTF8 { utf8 in
            utf8.count == stored.count && (utf8.isEmpty || memcmp(utf8.baseAddress!, stored.baseAddress!, utf8.count) == 0)
        }
    }

    /// A `bigint[]` (``PostgresDialect/keyList(_:)``), read in the binary format or from its
    /// text (`{1,2,3}`).
    func int64List(_ index: Int32) throws -> [Int64] {
        if isNull(index) { return [] }
        let list: [Int64]?
        if isBinary {
            list = PostgresBinaryValue.int64Array(bytes(index))
        } else {
            let text = String(decoding: bytes(index), as: UTF8.self)
            if text.hasPrefix("{"), text.hasSuffix("}") {
                let inner = text.dropFirst().dropLast()
                let elements = inner.isEmpty ? [] : inner.split(separator: ",", omittingEmptySubsequences: false).map { Int64($0) }
                list = elements.contains(nil) ? nil : elements.compactMap { $0 }
            } else {
                list = nil
            }
        }
        guard let list else {
            throw StorageError.engine(code: 0, message: "a list of record keys came back unreadable (\(String(decoding: bytes(index).prefix(40), as: UTF8.self))) from \(location)")
        }
        return list
    }

    func value(_ index: Int32, as type: AttributeType) throws -> Value {
        if isBinary {
            // A `NULL` reads as zero bytes, so only an empty value is asked whether it is one.
            let length = PQgetlength(result, row, index)
            if length == 0, isNull(index) { return .null }
            let raw = UnsafeRawBufferPointer(start: PQgetvalue(result, row, index), count: Int(length))
            // The columns PostgresDialect declares, each read with one load; anything else
            // (another column type, a damaged value) goes on to the general reader.
            let column = self.type(index)
            switch type {
            case .integer where column == PostgresBinaryValue.TypeID.numeric:
                // A whole number that fits 64 bits; a larger sum goes on to become a decimal.
                if let i = PostgresBinaryValue.Numeric.int64(raw) { return .int(i) }
                return try binaryValue(index, raw, as: type)
            case .integer where column == PostgresBinaryValue.TypeID.int8 && length == 8:
                return .int(Int64(bigEndian: raw.baseAddress.unsafelyUnwrapped.loadUnaligned(as: Int64.self)))
            case .double where column == PostgresBinaryValue.TypeID.float8 && length == 8:
                return .double(Double(bitPattern: UInt64(bigEndian: raw.baseAddress.unsafelyUnwrapped.loadUnaligned(as: UInt64.self))))
            case .date where column == PostgresBinaryValue.TypeID.float8 && length == 8:
                let interval = Double(bitPattern: UInt64(bigEndian: raw.baseAddress.unsafelyUnwrapped.loadUnaligned(as: UInt64.self)))
                return .date(Date(timeIntervalSinceReferenceDate: interval))
            case .string where column == PostgresBinaryValue.TypeID.bytea || column == PostgresBinaryValue.TypeID.text:
                return .string(StoredText.repaired(raw))
            default:
                return try binaryValue(index, raw, as: type)
            }
        }
        if isNull(index) { return .null }
        switch type {
        case .string, .url:
            if let data = bytea(index) { return .string(String(decoding: data, as: UTF8.self)) }
        case .bytes:
            if let data = bytea(index) { return .bytes(data) }
        case .uuid:
            if let data = bytea(index), data.count == 16 {
                var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                withUnsafeMutableBytes(of: &uuid) { $0.copyBytes(from: data) }
                return .uuid(UUID(uuid: uuid))
            }
        default:
            return try number(index, as: type)
        }
        throw Self.damaged(String(decoding: bytes(index).prefix(40), as: UTF8.self), type, location: location)
    }

    /// The value of a binary-format column whose bytes are `raw`: the bytes of a `bytea` as
    /// they are, numbers from their binary form, and everything else (decimals, integers beyond
    /// 64 bits, averages as `numeric`) through the text the text format would have sent, so both
    /// formats read alike.
    private func binaryValue(_ index: Int32, _ raw: UnsafeRawBufferPointer, as type: AttributeType) throws -> Value {
        let column = self.type(index)
        let holdsBytes = column == PostgresBinaryValue.TypeID.bytea || PostgresBinaryValue.isText(column)
        switch type {
        case .string, .url:
            if holdsBytes { return .string(StoredText.repaired(raw)) }
        case .bytes:
            if holdsBytes { return .bytes(Data(raw)) }
        case .uuid:
            if holdsBytes, raw.count == 16 {
                var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: raw) }
                return .uuid(UUID(uuid: uuid))
            }
        case .double, .date:
            if let d = PostgresBinaryValue.double(raw, type: column) {
                return type == .double ? .double(d) : .date(Date(timeIntervalSinceReferenceDate: d))
            }
            return try Self.number(binaryText(index), as: type, location: location)
        case .integer, .bool:
            if let i = PostgresBinaryValue.integer(raw, type: column) { return type == .integer ? .int(i) : .bool(i != 0) }
            return try Self.number(binaryText(index), as: type, location: location)
        case .decimal:
            return try Self.number(binaryText(index), as: type, location: location)
        }
        throw Self.damaged(String(decoding: raw.prefix(40), as: UTF8.self), type, location: location)
    }

    /// A value of a numeric column (bool, integer, double, date, decimal), from its text.
    private func number(_ index: Int32, as type: AttributeType) throws -> Value {
        return try Self.number(String(decoding: bytes(index), as: UTF8.self), as: type, location: location)
    }

    /// A value of a numeric column (bool, integer, double, date, decimal), from the text the
    /// server prints for it.
    static func number(_ text: String, as type: AttributeType, location: String) throws -> Value {
        switch type {
        case .bool:
            if let i = Int64(text) { return .bool(i != 0) }
        case .integer:
            if let i = Int64(text) { return .int(i) }
            // A sum beyond the 64-bit range (`numeric`).
            if let d = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) { return .decimal(d) }
        case .double:
            if let d = Double(text) { return .double(d) }
        case .date:
            if let d = Double(text) { return .date(Date(timeIntervalSinceReferenceDate: d)) }
        case .decimal:
            if text == "NaN" { return .decimal(.nan) }
            if let d = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) { return .decimal(d) }
        case .string, .url, .bytes, .uuid:
            break
        }
        throw damaged(text, type, location: location)
    }

    private static func damaged(_ text: String, _ type: AttributeType, location: String) -> StorageError {
        StorageError.engine(code: 0, message: "a column of type \(type.rawValue) holds an unexpected value (\(text.prefix(40))) in \(location); the database is damaged or was changed by another program")
    }

    /// The bytes of a `bytea` column in its text form (`\x` and two hex digits per byte).
    private func bytea(_ index: Int32) -> Data? {
        Self.bytea(bytes(index))
    }

    /// The bytes of a `bytea` in its text form; `nil` when `text` is not one.
    static func bytea(_ text: UnsafeRawBufferPointer) -> Data? {
        guard text.count >= 2, text.count % 2 == 0, text[0] == UInt8(ascii: "\\"), text[1] == UInt8(ascii: "x") else { return nil }
        let count = text.count / 2 - 1
        var valid = true
        var data = Data(count: count)
        data.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) in
            for i in 0..<count {
                let high = hexDigits[Int(text[2 + 2 * i])], low = hexDigits[Int(text[3 + 2 * i])]
                if high > 15 || low > 15 { valid = false; return }
                buffer[i] = high << 4 | low
            }
        }
        return valid ? data : nil
    }

    /// The value of each hex digit's character; 255 for the others.
    private static let hexDigits: [UInt8] = (0...255).map { c in
        switch UInt8(c) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt8(c) - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt8(c) - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt8(c) - UInt8(ascii: "A") + 10
        default: return 255
        }
    }
}
