import Foundation
import CoreStoreSQL
import CoreStoreStorage

/// PostgreSQL as the shared SQL layer writes for it.
///
/// | type | column | value |
/// |---|---|---|
/// | bool | `SMALLINT` | 0 or 1 (so that it compares with numbers as the reference does) |
/// | integer | `NUMERIC` | the integer (a `UInt64` beyond `Int64.max` is a decimal) |
/// | double | `DOUBLE PRECISION` | the double, NaN, the infinities and `-0.0` included |
/// | decimal | `NUMERIC` | the decimal's text, NaN included |
/// | string, url | `BYTEA` | the UTF-8 bytes: PostgreSQL's `text` cannot hold NUL, and `bytea` compares byte by byte, the reference order |
/// | bytes, uuid | `BYTEA` | the bytes |
/// | date | `DOUBLE PRECISION` | seconds since 2001-01-01 00:00:00 UTC (`Date`'s own representation) |
///
/// PostgreSQL has no function the SQL could call back into Swift with, so comparisons it cannot
/// answer exactly (string options and operators, numbers of different kinds beyond 2^53) have
/// no fallback test: the reader evaluates such a request itself.
struct PostgresDialect: SQLDialect {
    func placeholder(_ number: Int) -> String { "$\(number)" }

    // MARK: Tables

    var keyColumnDefinition: String { "BIGINT PRIMARY KEY" }
    var entityColumnDefinition: String { "TEXT NOT NULL" }
    /// `false`: a whole-row select returns rows as stored only when it lists the table's
    /// columns in their order (see ``readsWholeRowsAsStored``), which starts with `_key`.
    var placesKeyColumnsLast: Bool { false }
    var keyReferenceColumnType: String { "BIGINT" }
    var temporarySchema: String { "pg_temp" }
    var maximumIdentifierLength: Int? { 63 }
    /// An index scan that reads only keys (a fetch of held records, `fetchIdentifiers`, a bulk
    /// delete's keys) then needs no table row once `VACUUM` has marked the pages all-visible
    /// (``PostgresStatistics`` runs it after a commit that fills a table): the keys of 1,000
    /// rows by an indexed attribute, 0.63 ms against 0.27 ms of server time.
    var indexKeyInclusion: String { " INCLUDE (\"_key\")" }

    func columnDefinition(_ type: AttributeType) -> String {
        switch type {
        case .bool: return "SMALLINT"
        case .integer, .decimal: return "NUMERIC"
        case .double, .date: return "DOUBLE PRECISION"
        case .string, .url, .bytes, .uuid: return "BYTEA"
        }
    }

    func joinTableCreation(_ quotedName: String) -> String {
        "CREATE TABLE \(quotedName) (\"source\" BIGINT NOT NULL, \"position\" BIGINT NOT NULL, \"destination\" BIGINT NOT NULL, PRIMARY KEY (\"source\", \"position\"))"
    }

    // MARK: Values and comparisons

    func encode(_ value: Value, as type: AttributeType) -> SQLValue {
        switch value {
        case .null: return .null
        case .bool(let b): return type == .double ? .real(b ? 1 : 0) : .integer(b ? 1 : 0)
        case .int(let i): return type == .double || type == .date ? .real(Double(i)) : .integer(i)
        case .double(let d): return .real(d)
        case .decimal(let d): return .text(Self.decimalText(d))
        case .string(let s): return .blob(Data(s.utf8))
        case .bytes(let data): return .blob(data)
        case .date(let date): return .real(date.timeIntervalSinceReferenceDate)
        case .uuid(let uuid): return .blob(withUnsafeBytes(of: uuid.uuid) { Data($0) })
        }
    }

    /// The canonical text of a decimal (`NaN` for NaN).
    static func decimalText(_ d: Decimal) -> String {
        var d = d
        return NSDecimalString(&d, Locale(identifier: "en_US_POSIX"))
    }

    /// Integers whose every value a double holds exactly.
    private static let exactDoubleIntegers: ClosedRange<Int64> = -(1 << 53)...(1 << 53)

    func comparisonParameter(_ value: Value, for type: AttributeType) -> SQLComparisonParameter {
        switch (type, value) {
        case (.bool, .bool(let b)), (.integer, .bool(let b)):
            return .sql(.integer(b ? 1 : 0))
        case (.double, .bool(let b)):
            return .sql(.real(b ? 1 : 0))
        case (.bool, .int(let i)), (.integer, .int(let i)):
            return .sql(.integer(i))
        case (.double, .int(let i)):
            // The server would compare through a double: exact only up to 2^53.
            return Self.exactDoubleIntegers.contains(i) ? .sql(.real(Double(i))) : .fallback
        case (.double, .double(let d)):
            return d.isNaN ? .never : .sql(.real(d))
        case (.bool, .double(let d)), (.integer, .double(let d)):
            // The parameter takes the column's integer type: only integral doubles convert.
            if d.isNaN { return .never }
            if d.rounded() == d, d >= -9.2e18, d <= 9.2e18 { return .sql(.integer(Int64(d))) }
            return .fallback
        case (.integer, .decimal(let d)):
            // Both are exact decimals to the server.
            return d.isNaN ? .fallback : .sql(.text(Self.decimalText(d)))
        case (.bool, .decimal(let d)):
            var value = d, rounded = Decimal()
            NSDecimalRound(&rounded, &value, 0, .down)
            guard !d.isNaN, rounded == d, d >= Decimal(Int64.min), d <= Decimal(Int64.max), let i = Int64(Self.decimalText(d)) else { return .fallback }
            return .sql(.integer(i))
        case (.decimal, .int(let i)):
            return .sql(.text(String(i)))
        case (.decimal, .bool(let b)):
            return .sql(.text(b ? "1" : "0"))
        case (.decimal, .decimal(let d)):
            return d.isNaN ? .fallback : .sql(.text(Self.decimalText(d)))
        case (.double, .decimal), (.decimal, .double):
            return .fallback
        case (.string, .string), (.url, .string), (.bytes, .bytes), (.date, .date), (.uuid, .uuid):
            return .sql(encode(value, as: type))
        default:
            return .never
        }
    }

    func comparable(_ column: String, type: AttributeType) -> String { column }

    /// PostgreSQL orders NaN after every number and takes it as equal to itself.
    func holdsNumber(_ column: String) -> String { "\(column) <> 'NaN'" }

    func holdsNaN(_ column: String) -> String { "\(column) = 'NaN'" }

    func isSame(_ lhs: String, _ rhs: String) -> String { "\(lhs) IS NOT DISTINCT FROM \(rhs)" }

    /// Lists longer than this are bound as one array.
    static let arrayListThreshold = 500

    /// `($1, $2, …)`, or for a long list `(SELECT unnest(CAST($n AS type[])))` with the whole
    /// list bound as one array literal (a statement takes at most 65,535 parameters).
    func inList(_ members: [SQLValue], bind: (SQLValue) -> String) -> String {
        if members.count > Self.arrayListThreshold, let (literal, type) = Self.arrayLiteral(members) {
            return "(SELECT unnest(CAST(\(bind(.text(literal))) AS \(type)[])))"
        }
        return "(" + members.map { bind($0) }.joined(separator: ", ") + ")"
    }

    /// `column = ANY(CAST($1 AS bigint[]))`, the keys bound as one array: one statement text
    /// for any number of keys, and the server plans one parameter instead of hundreds (deleting
    /// 1,000 rows by key: 0.9 ms against 2.2 ms with `IN ($1, …, $500)` twice).
    var keysPerCondition: Int { 10_000 }

    /// The protocol counts a statement's parameters in 16 bits.
    var maximumParameters: Int { 65_535 }
    /// An error aborts the whole transaction: batches skip refused rows instead.
    var batchInsertConflicts: SQLBatchInsertConflicts { .skipRefusedRows }

    func keyListCondition(_ column: String, keys: ArraySlice<Int64>) -> (sql: String, parameters: [SQLValue]) {
        var literal = "{"
        literal.reserveCapacity(keys.count * 8 + 2)
        for (index, key) in keys.enumerated() {
            if index > 0 { literal += "," }
            literal += String(key)
        }
        literal += "}"
        return ("\(column) = ANY(CAST($1 AS bigint[]))", [.text(literal)])
    }

    /// The array literal of members of one kind, with its element type; `nil` for mixed kinds.
    static func arrayLiteral(_ members: [SQLValue]) -> (String, String)? {
        var elements: [String] = []
        elements.reserveCapacity(members.count)
        var type: String?
        for member in members {
            let element: String, elementType: String
            switch member {
            case .integer(let i): element = String(i); elementType = "bigint"
            case .real(let d): element = "\"\(PostgresConnection.text(of: d))\""; elementType = "double precision"
            case .text(let s): element = "\"\(s)\""; elementType = "numeric"
            case .blob(let data): element = "\"\\\\x" + data.map { String(format: "%02x", $0) }.joined() + "\""; elementType = "bytea"
            case .null: return nil
            }
            if let type, type != elementType { return nil }
            type = elementType
            elements.append(element)
        }
        guard let type else { return nil }
        return ("{" + elements.joined(separator: ",") + "}", type)
    }

    func fallbackTest(_ value: String, leaf: Int) -> String? { nil }

    // MARK: Order and windows

    /// PostgreSQL ranks NULL last when ascending: say where it goes.
    func orderTerm(_ expression: String, direction: String) -> String {
        "\(expression) \(direction) NULLS \(direction == "ASC" ? "FIRST" : "LAST")"
    }

    /// `LIMIT NULL` is no limit.
    var noLimit: SQLValue { .null }
    /// A sort of 1,000 rows picked through an index took longer than picking them (1.05 ms
    /// against 0.45 ms), and a scan in key order 30% longer than a sequential one; the reader
    /// checks the order in one pass and sorts only rows that updates moved.
    var ordersRecordsByKeyInReader: Bool { true }
    /// A select list that is exactly the table's columns lets the server return each stored
    /// row as it is; any other list (a `NULL` for `_entity`) makes it build a new row per row
    /// read. Measured on 100,000 rows (`EXPLAIN ANALYZE`, server time): a whole-table read
    /// 9.0 ms → 3.2 ms; a range with a sort and a limit of 100, 17.0 ms → 10.5 ms.
    var readsWholeRowsAsStored: Bool { true }
    /// `array_agg`: one `bigint[]` in the binary format (``PostgresRow/int64List(_:)``) instead
    /// of a row per key, each a protocol message for libpq to parse and the reader to step to.
    func keyList(_ column: String) -> String? { "array_agg(\(column))" }

    // MARK: Aggregates

    /// `sum(… ORDER BY key)` adds the values one by one in record-key order, as the reference
    /// does (a plain `sum()` adds in whatever order the plan yields, which can round
    /// differently; `avg()` of doubles compensates the error). What still differs:
    /// - the server's running total starts from the first value, the reference's from `0.0`:
    ///   the two totals differ only in the sign of a zero, and only while every value so far
    ///   was `-0.0`; adding `0` at the end makes that `0.0`, as the reference has it, and
    ///   changes no other total;
    /// - a total that overflows, or an average that underflows to zero, is an error on the
    ///   server (22003) where the reference goes on: the reader then evaluates
    ///   (``PostgresConnection/abandonedAggregate(_:)``).
    ///
    /// The average divides by the count as a double, as the reference does.
    func exactDoubleAggregate(average: Bool, key: String, column: String) -> String? {
        let sum = "(sum(\(column) ORDER BY \(key)) + '0'::float8)"
        return average ? "(\(sum) / count(\(column))::float8)" : sum
    }

    /// Plain `sum()`, which adds in the plan's order with no sort (100,000 rows grouped by a
    /// key with 100 values: 41 ms with `ORDER BY` in the sum, 17 ms this way with the test,
    /// 12 ms for the plain sum alone),
    /// exact when ``SQLOrderFreeDoubleSum``'s condition holds: `x * 2^16 = trunc(x * 2^16)`
    /// says `x` is a multiple of 2⁻¹⁶ (scaling by a power of two is exact), and the sum of the
    /// magnitudes is below 2³⁷ (while the magnitudes added so far are below it they add up
    /// exactly, so the computed sum reaches the bound exactly when the true one does). NaN
    /// compares above every number here, so a NaN or an infinity fails the test.
    func orderFreeDoubleAggregate(average: Bool, column: String) -> SQLOrderFreeDoubleSum? {
        let sum = "(sum(\(column)) + '0'::float8)"
        let scaled = "(\(column) * '\(1 / SQLOrderFreeDoubleSum.granularity)'::float8)"
        return SQLOrderFreeDoubleSum(
            call: average ? "(\(sum) / count(\(column))::float8)" : sum,
            isExact: "coalesce(bool_and(\(scaled) = trunc(\(scaled))) AND sum(abs(\(column))) < '\(SQLOrderFreeDoubleSum.magnitudeLimit)'::float8, true)")
    }

    /// `sum()` of an integer column is a `numeric`: one beyond the 64-bit range comes back as a
    /// decimal, which the reader hands to the evaluator.
    func unsummableIntegerCheck(_ column: String) -> String? { nil }

    /// `bytea` has no `min()` or `max()`.
    func hasMinimumAndMaximum(of type: AttributeType) -> Bool {
        columnDefinition(type) != "BYTEA"
    }

    func groupingTerm(_ column: String, readsOtherColumns: Bool) -> String { column }
}
