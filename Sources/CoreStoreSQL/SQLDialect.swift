import CoreStoreStorage

/// What differs between the SQL databases that the shared SQL layer writes for: how parameters
/// are spelled, which column types hold each attribute type, how a constant compares with a
/// column, how sort keys order `nil` and NaN, how a long `IN` list is bound, and which
/// comparisons and aggregates the database can answer exactly as the reference evaluators do.
///
/// ``SQLSchemaMapping`` (tables, columns, indexes, their DDL), ``SQLQueryBuilder`` (predicates,
/// sorts, windows) and ``SQLAggregateQuery`` (aggregates, group-by) are written once against this
/// description. Everything they produce must give the answers `PredicateEvaluator`,
/// `RecordOrder` and `AggregateEvaluator` give; where a database cannot, its dialect says so
/// (``fallbackTest(_:leaf:)`` returns `nil`, ``comparisonParameter(_:for:)`` returns
/// ``SQLComparisonParameter/fallback``, an aggregate hook returns `nil`) and the backend
/// evaluates that part itself.
package protocol SQLDialect: Sendable {
    /// The text of the `number`-th statement parameter, counting from 1.
    func placeholder(_ number: Int) -> String

    // MARK: Tables

    /// The definition of the record-key column `_key` (the table's primary key).
    var keyColumnDefinition: String { get }
    /// The definition of the `_entity` column (the record's concrete entity name).
    var entityColumnDefinition: String { get }
    /// Whether a record table's `_key` and `_entity` columns come after its attribute columns
    /// instead of before them. Where an engine finds a column by walking the row's values from
    /// the first (SQLite's record header), attributes placed first are reached sooner by every
    /// filter, sort and aggregate, and `_key` (SQLite's rowid) is never read from the row. Only
    /// the order of a new table changes: reads and writes name their columns.
    var placesKeyColumnsLast: Bool { get }
    /// The declared type of a column holding record keys: foreign keys and positions.
    var keyReferenceColumnType: String { get }
    /// The schema that qualifies the connection's temporary tables (`temp`, `pg_temp`).
    var temporarySchema: String { get }
    /// The bytes of a name the database keeps (it cuts longer ones), `nil` for no limit.
    var maximumIdentifierLength: Int? { get }
    /// What follows an index's column list so that the index also holds each row's `_key`, for
    /// reads of keys alone that the index then answers without the table (PostgreSQL:
    /// `INCLUDE ("_key")`); empty where every index already holds it (SQLite's rowid).
    var indexKeyInclusion: String { get }
    /// The declared type (and collation) of an attribute's column; may be empty.
    func columnDefinition(_ type: AttributeType) -> String
    /// `CREATE TABLE` of a join table (`source`, `position`, `destination`, keyed by source and
    /// position), given its quoted name.
    func joinTableCreation(_ quotedName: String) -> String

    // MARK: Values and comparisons

    /// The column value of `value` in a column of `type`.
    func encode(_ value: Value, as type: AttributeType) -> SQLValue
    /// How `value` compares natively with a column of `type`.
    func comparisonParameter(_ value: Value, for type: AttributeType) -> SQLComparisonParameter
    /// The expression that compares a column of `type` in the reference order (a collation for
    /// decimals, for example); `column` itself when nothing is needed.
    func comparable(_ column: String, type: AttributeType) -> String
    /// A condition that is true when the double column `column` holds a number that is not NaN.
    /// It may assume the column is not NULL.
    func holdsNumber(_ column: String) -> String
    /// A condition that is true when the double column `column` holds NaN (not NULL).
    func holdsNaN(_ column: String) -> String
    /// `lhs` equals `rhs`, where a NULL equals only NULL; never NULL itself.
    func isSame(_ lhs: String, _ rhs: String) -> String
    /// The right-hand side of an `IN` over `members` (non-NULL, at least one), binding values
    /// through `bind`, which returns each one's placeholder.
    func inList(_ members: [SQLValue], bind: (SQLValue) -> String) -> String
    /// The test of a comparison SQL cannot answer exactly: the `leaf`-th leaf of the statement,
    /// on the value expression `value`. `nil` when the database has no such function, and the
    /// backend must evaluate the predicate itself.
    func fallbackTest(_ value: String, leaf: Int) -> String?

    // MARK: Key lists

    /// The most keys one ``keyListCondition(_:keys:)`` names (databases cap the parameters of
    /// one statement; a few hundred already amortize a round trip).
    var keysPerCondition: Int { get }
    /// The condition that the integer column `column` holds one of `keys` (at least one, at most
    /// ``keysPerCondition``), and the parameters it binds, from placeholder 1 on: how the
    /// statements that name records by key (reading records and their to-many relationships,
    /// deleting rows) select them.
    func keyListCondition(_ column: String, keys: ArraySlice<Int64>) -> (sql: String, parameters: [SQLValue])

    // MARK: Batched inserts

    /// The most parameters one statement may bind: a batched `INSERT` (see ``SQLWriter``) holds
    /// as many rows as fit.
    var maximumParameters: Int { get }
    /// What a batched `INSERT` does with a row a constraint refuses (see
    /// ``SQLBatchInsertConflicts``).
    var batchInsertConflicts: SQLBatchInsertConflicts { get }

    // MARK: Order and windows

    /// The ORDER BY term of a column compared natively in `direction` (`ASC` or `DESC`), with
    /// `nil` ranked first when ascending and last when descending.
    func orderTerm(_ expression: String, direction: String) -> String
    /// The value bound as `LIMIT` when a window has an offset but no limit.
    var noLimit: SQLValue { get }
    /// Whether a fetch with no sort descriptors and no window is read without `ORDER BY` and
    /// put in record-key order by the reader: for an engine whose plans answer `ORDER BY` the
    /// key with a sort step or an index scan (PostgreSQL), while rows mostly come in key order
    /// anyway. `false` for an engine that returns rowid tables in key order at no cost (SQLite).
    var ordersRecordsByKeyInReader: Bool { get }
    /// Whether a whole-row read of an entity alone in its table still names `_entity`, so that
    /// the select list is the table's own columns in their stored order: an engine that then
    /// hands out the stored rows as they are, without building a new row for each (PostgreSQL:
    /// a `NULL` in the list costs such a row per row read), says `true`. `false` for an engine
    /// that reads and sends less for a `NULL` (SQLite).
    var readsWholeRowsAsStored: Bool { get }
    /// An aggregate that returns every value of the integer column `column` as one value (an
    /// array, read by ``SQLRow/int64List(_:)``), for an unordered read of record keys alone;
    /// `nil` to read them a row each. For an engine where a result row costs far more than the
    /// number it holds (PostgreSQL: a protocol message and its parsing per row), `array_agg`.
    func keyList(_ column: String) -> String?

    // MARK: Aggregates

    /// The aggregate call computing `sum` or `average` of a double column exactly as
    /// `AggregateAccumulator` does (values added in record-key order), or `nil`.
    func exactDoubleAggregate(average: Bool, key: String, column: String) -> String?
    /// The same `sum` or `average` of a double column added in any order, with a test of when
    /// that order cannot change the total (``SQLOrderFreeDoubleSum``); `nil` when the key-ordered
    /// call costs no more (an engine that scans a table in key order).
    func orderFreeDoubleAggregate(average: Bool, column: String) -> SQLOrderFreeDoubleSum?
    /// An aggregate that is 1 when some row of the group holds an integer the database cannot
    /// sum (stored outside the 64-bit range), else 0; `nil` when no such value can be stored.
    func unsummableIntegerCheck(_ column: String) -> String?
    /// Whether `min()` and `max()` apply to columns of `type`.
    func hasMinimumAndMaximum(of type: AttributeType) -> Bool
    /// The GROUP BY term of `column`. `readsOtherColumns`: the aggregates read columns besides
    /// the group keys (a hint some query planners need).
    func groupingTerm(_ column: String, readsOtherColumns: Bool) -> String
}

/// How a constant compares natively with a column (``SQLDialect/comparisonParameter(_:for:)``).
package enum SQLComparisonParameter: Sendable {
    /// Bound as this value, the database compares it exactly.
    case sql(SQLValue)
    /// The comparison can never hold (another kind of value, NaN).
    case never
    /// The database cannot compare it exactly: the fallback test must.
    case fallback
}

/// A comparison the SQL could not express natively, with the type of its column: the statement
/// refers to it by its position among the statement's leaves (``SQLDialect/fallbackTest(_:leaf:)``).
package struct SQLFallbackLeaf: Sendable {
    package let comparison: Comparison
    package let type: AttributeType

    package init(comparison: Comparison, type: AttributeType) {
        self.comparison = comparison
        self.type = type
    }
}

/// The SQL of a request needs a comparison the dialect cannot express: the backend evaluates
/// the request's predicate itself (with `PredicateEvaluator`).
package struct SQLNeedsEvaluator: Error {
    /// The comparison that could not be translated.
    package let comparison: Comparison
}

/// What a batched `INSERT` (``SQLWriter``) does with a row that a constraint (the key, a unique
/// index) refuses. Either way the rows it did not write are then inserted one by one, so that
/// the commit fails with the refused row's own error, as it would have row by row.
package enum SQLBatchInsertConflicts: Sendable {
    /// `INSERT OR FAIL`: the statement stops at the refused row and fails, keeping the rows
    /// before it, and the transaction goes on (SQLite). The default `ABORT` would undo the
    /// statement's own rows instead, which needs a statement journal: a copy of every page
    /// the statement changes, spilled to a temporary file beyond 64 KiB — 200,000 writes for
    /// 100,000 rows inserted in batches.
    case stopAtRefusedRow
    /// `ON CONFLICT DO NOTHING RETURNING "_key"`: the refused rows are left out and the
    /// statement returns the keys it wrote (PostgreSQL, where a failed statement ends the
    /// whole transaction).
    case skipRefusedRows
}
