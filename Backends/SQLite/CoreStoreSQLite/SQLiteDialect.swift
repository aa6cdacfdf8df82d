import Foundation
import CoreStoreSQL
import CoreStoreStorage

/// SQLite as the shared SQL layer writes for it: `?N` parameters, the column encodings of
/// ``SQLiteValueCodec``, and the functions and collation every connection registers
/// (``SQLiteFunctions``) for what SQLite cannot answer exactly by itself.
struct SQLiteDialect: SQLDialect {
    func placeholder(_ number: Int) -> String { "?\(number)" }

    // MARK: Tables

    var keyColumnDefinition: String { "INTEGER PRIMARY KEY" }
    var entityColumnDefinition: String { "TEXT NOT NULL" }
    /// `true`: SQLite reaches a column by walking the record header from the first one, so
    /// attributes come first; `_key`, the rowid, is stored as a `NULL` wherever it is.
    var placesKeyColumnsLast: Bool { true }
    var keyReferenceColumnType: String { "INTEGER" }
    var temporarySchema: String { "temp" }
    var maximumIdentifierLength: Int? { nil }
    /// An index of a rowid table already ends with the rowid, which `_key` is.
    var indexKeyInclusion: String { "" }

    func columnDefinition(_ type: AttributeType) -> String {
        SQLiteValueCodec.columnDefinition(type)
    }

    func joinTableCreation(_ quotedName: String) -> String {
        "CREATE TABLE \(quotedName) (\"source\" INTEGER NOT NULL, \"position\" INTEGER NOT NULL, \"destination\" INTEGER NOT NULL, PRIMARY KEY (\"source\", \"position\")) WITHOUT ROWID"
    }

    // MARK: Values and comparisons

    func encode(_ value: Value, as type: AttributeType) -> SQLValue {
        SQLiteValueCodec.encode(value, as: type)
    }

    func comparisonParameter(_ value: Value, for type: AttributeType) -> SQLComparisonParameter {
        switch (type, value) {
        case (.bool, .bool(let b)), (.integer, .bool(let b)), (.double, .bool(let b)):
            return .sql(.integer(b ? 1 : 0))
        case (.bool, .int(let i)), (.integer, .int(let i)), (.double, .int(let i)):
            return .sql(.integer(i))
        case (.bool, .double(let d)), (.double, .double(let d)):
            return d.isNaN ? .never : .sql(.real(d))
        case (.integer, .double(let d)):
            if d.isNaN { return .never }
            // Integer columns may hold UInt64 values above Int64.max as text; only doubles
            // inside the Int64 range order correctly against them.
            return abs(d) < 9.2e18 ? .sql(.real(d)) : .fallback
        case (.integer, .decimal(let d)):
            if let i = Self.exactInt64(d) { return .sql(.integer(i)) }
            if d > Decimal(Int64.max), d <= Decimal(UInt64.max), Self.isIntegral(d) { return .sql(SQLiteValueCodec.encodeBigInteger(d)) }
            return .fallback
        case (.bool, .decimal), (.double, .decimal), (.decimal, .double):
            return .fallback
        case (.decimal, .int(let i)):
            return .sql(.text(SQLiteValueCodec.decimalText(Decimal(i))))
        case (.decimal, .bool(let b)):
            return .sql(.text(b ? "1" : "0"))
        case (.decimal, .decimal(let d)):
            return .sql(.text(SQLiteValueCodec.decimalText(d)))
        case (.string, .string(let s)), (.url, .string(let s)):
            return .sql(.text(s))
        case (.bytes, .bytes), (.date, .date), (.uuid, .uuid):
            return .sql(SQLiteValueCodec.encode(value, as: type))
        default:
            return .never
        }
    }

    private static func exactInt64(_ d: Decimal) -> Int64? {
        guard isIntegral(d), d >= Decimal(Int64.min), d <= Decimal(Int64.max) else { return nil }
        return Int64(SQLiteValueCodec.decimalText(d))
    }

    private static func isIntegral(_ d: Decimal) -> Bool {
        var value = d, rounded = Decimal()
        NSDecimalRound(&rounded, &value, 0, .down)
        return rounded == d
    }

    /// Decimals are text, compared numerically by the `CORESTORE_DECIMAL` collation; the rest
    /// compare natively (strings by their UTF-8 bytes, SQLite's `BINARY`).
    func comparable(_ column: String, type: AttributeType) -> String {
        type == .decimal ? "(\(column) COLLATE CORESTORE_DECIMAL)" : column
    }

    /// NaN is stored as the text `NaN`, and every number sorts before every text value, the
    /// empty one included: `< ''` is `typeof(…) <> 'text'` without a function call per row.
    func holdsNumber(_ column: String) -> String { "\(column) < ''" }

    func holdsNaN(_ column: String) -> String { "typeof(\(column)) = 'text'" }

    /// `IS` is SQLite's equality that takes NULL for a value.
    func isSame(_ lhs: String, _ rhs: String) -> String { "\(lhs) IS \(rhs)" }

    /// Lists longer than this are bound as one JSON array when they can be.
    static let jsonListThreshold = 500

    /// `(?1, ?2, …)`, or for a long list `(SELECT value FROM json_each(?n))` with the whole list
    /// bound as one JSON array text.
    ///
    /// SQLite caps the parameters of one statement (`SQLITE_MAX_VARIABLE_NUMBER`: 32,766 by
    /// default since 3.32, less in older or other builds), so a list of thousands of members
    /// cannot be bound one by one. `json_each` yields every integer as an INTEGER and every
    /// string as the same TEXT, and neither the subquery's values nor the list's parameters
    /// have an affinity, so the column's affinity and collation apply to both alike: the
    /// result is the same, and SQLite still probes the column's index once per member. Only
    /// lists of integers and NUL-free texts qualify (reals would go through decimal text, blobs
    /// have no JSON form); others keep one parameter per member.
    func inList(_ members: [SQLValue], bind: (SQLValue) -> String) -> String {
        if members.count > Self.jsonListThreshold, let json = SQLiteJSONArray.encode(members) {
            return "(SELECT value FROM json_each(\(bind(.text(json)))))"
        }
        return "(" + members.map { bind($0) }.joined(separator: ", ") + ")"
    }

    /// `column IN (?1, ?2, …)`: one parameter per key, 500 at most (SQLite's default cap is
    /// 32,766 parameters).
    var keysPerCondition: Int { Self.keyListChunk }

    private static let keyListChunk = 500

    /// 999: what every SQLite build allows (3.32 raised the default to 32,766, but a system
    /// library may be older or built lower); 64 rows of up to 14 columns fit.
    var maximumParameters: Int { 999 }
    /// `INSERT OR FAIL`: no statement journal for a batch (see ``SQLBatchInsertConflicts``).
    var batchInsertConflicts: SQLBatchInsertConflicts { .stopAtRefusedRow }

    func keyListCondition(_ column: String, keys: ArraySlice<Int64>) -> (sql: String, parameters: [SQLValue]) {
        let placeholders = keys.count == keysPerCondition ? Self.fullKeyListPlaceholders : Self.placeholderList(keys.count)
        return ("\(column) IN (\(placeholders))", keys.map { .integer($0) })
    }

    /// `?1, ?2, …` for a full chunk of keys, made once (every chunk but a list's last is full).
    private static let fullKeyListPlaceholders = placeholderList(keyListChunk)

    private static func placeholderList(_ count: Int) -> String {
        (1...count).map { "?\($0)" }.joined(separator: ", ")
    }

    /// `corestore_test(value, n)` answers with `PredicateEvaluator` (``SQLiteFunctions``).
    func fallbackTest(_ value: String, leaf: Int) -> String? {
        "corestore_test(\(value), \(leaf))"
    }

    // MARK: Order and windows

    /// SQLite ranks NULL before every value, which is `RecordOrder`'s place for `nil`.
    func orderTerm(_ expression: String, direction: String) -> String { "\(expression) \(direction)" }

    var noLimit: SQLValue { .integer(-1) }
    /// Rowid tables and their indexes hold rows in key order: `ORDER BY "_key"` costs no sort.
    var ordersRecordsByKeyInReader: Bool { false }
    /// `NULL` for a name every row shares is neither read nor sent.
    var readsWholeRowsAsStored: Bool { false }
    /// A row of a step costs about what the key in it does: keys are read a row each.
    func keyList(_ column: String) -> String? { nil }

    // MARK: Aggregates

    func exactDoubleAggregate(average: Bool, key: String, column: String) -> String? {
        "\(average ? "corestore_average_double" : "corestore_sum_double")(\(key), \(column))"
    }

    /// The key-ordered call already reads a rowid table in key order, with no sort.
    func orderFreeDoubleAggregate(average: Bool, column: String) -> SQLOrderFreeDoubleSum? { nil }

    /// `UInt64` values above `Int64.max` are stored as text.
    func unsummableIntegerCheck(_ column: String) -> String? {
        "max(typeof(\(column)) = 'text')"
    }

    func hasMinimumAndMaximum(of type: AttributeType) -> Bool { true }

    /// When an aggregate reads a column besides the group keys, no index covers the query, and
    /// grouping along an index on a key means one table lookup per row in index order: SQLite
    /// still prefers that plan, but scanning the table and sorting is about twice as fast (100k
    /// rows: 50 ms against 110 ms). A unary `+` keeps SQLite from grouping along the index (it
    /// changes neither the values nor their collation); WHERE can still use any index.
    func groupingTerm(_ column: String, readsOtherColumns: Bool) -> String {
        readsOtherColumns ? "+" + column : column
    }
}
