import CoreStoreStorage

/// One connection to an SQL database, as the shared reader and writer use it: prepared
/// statements with numbered parameters, rows read column by column.
///
/// Not thread-safe: a backend hands a connection to one thread at a time.
package protocol SQLConnection: AnyObject {
    associatedtype Statement: SQLStatement

    /// A prepared statement for `sql` (a connection may cache them).
    func statement(_ sql: String) throws -> Statement
    /// Runs `sql`, which takes no parameters (DDL, transaction control), ignoring any rows.
    func execute(_ sql: String) throws

    /// The number of rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int { get }

    /// Runs `sql` with `parameters` and calls `row` for each result row, with the comparisons of
    /// the statement's fallback tests (``SQLDialect/fallbackTest(_:leaf:)``) installed.
    ///
    /// Rows come as `any SQLRow`, made in the backend's concrete code: the shared layer runs
    /// unspecialized (it is generic over the connection, in another module), and naming
    /// `Statement.Row` there would cost a runtime lookup of the type and its conformance on
    /// every row.
    func query(_ sql: String, parameters: [SQLValue], leaves: [SQLFallbackLeaf], _ row: (any SQLRow) throws -> Void) throws

    /// What a failed write statement was about, when the database says it broke a constraint.
    func constraintViolation(in error: StorageError) -> SQLConstraintViolation?

    /// Whether the database gave up on an aggregate that the reference evaluator answers (an
    /// integer sum that overflows, a value its functions cannot read): the reader then evaluates
    /// it from the records.
    func abandonedAggregate(_ error: StorageError) -> Bool

    /// Runs `body`, a native aggregate the database may give up on (``abandonedAggregate(_:)``),
    /// so that the connection can still run the fallback afterwards in the same transaction. The
    /// default runs `body` as it is: a database whose errors end only the statement needs no more.
    func attemptingAggregate<T>(_ body: () throws -> T) throws -> T
}

extension SQLConnection {
    package func attemptingAggregate<T>(_ body: () throws -> T) throws -> T { try body() }
}

/// Which constraint a failed write broke (``SQLConnection/constraintViolation(in:)``).
package enum SQLConstraintViolation: Sendable {
    /// The record key is taken.
    case primaryKey
    /// A unique index refused the row: the index's name when the database says it, else `nil`
    /// (then the writer looks for the clashing row).
    case unique(index: String?)
}

/// A prepared statement of one ``SQLConnection``.
package protocol SQLStatement: AnyObject {
    associatedtype Row: SQLRow

    /// Runs the statement to completion with `values`, ignoring any rows.
    func execute(_ values: [SQLValue]) throws
    /// Runs the statement with `values` and calls `row` for each result row.
    func query(_ values: [SQLValue], _ row: (Row) throws -> Void) throws
    /// Ends the previous run so that parameters can be bound one by one with
    /// ``bind(_:at:)``; every parameter must then be bound.
    func reset()
    /// Binds `value` to parameter `index` (from 1).
    func bind(_ value: SQLValue, at index: Int32) throws
    /// Runs the statement to completion with the parameters bound since ``reset()``.
    func run() throws
}

/// The current row of a statement's result.
package protocol SQLRow {
    /// The integer in column `index` (0 for NULL).
    func int64(_ index: Int32) -> Int64
    /// The integer in column `index`, or `nil` when it holds no integer.
    func integer(_ index: Int32) -> Int64?
    /// The text in column `index`, or `nil` for NULL.
    func text(_ index: Int32) -> String?
    /// Whether column `index` is the text `text` (a connection can compare without making a
    /// string).
    func textEquals(_ index: Int32, _ text: String) -> Bool
    /// The attribute value in column `index`, as a column of `type` holds it; throws when it
    /// holds something this type never writes.
    func value(_ index: Int32, as type: AttributeType) throws -> Value
    /// How many rows the whole result holds, when the connection has them all before the first
    /// is handed out (a client-side result); `nil` when rows are stepped one at a time.
    var rowsInResult: Int? { get }
    /// The integers of the list in column `index`, as ``SQLDialect/keyList(_:)`` makes it; an
    /// empty list for NULL (an aggregate over no rows). Throws for anything else.
    func int64List(_ index: Int32) throws -> [Int64]
}

extension SQLRow {
    /// Unknown: rows are stepped one at a time.
    package var rowsInResult: Int? { nil }

    /// Throws: a connection whose dialect makes no key lists (``SQLDialect/keyList(_:)`` is
    /// `nil`) is never asked for one.
    package func int64List(_ index: Int32) throws -> [Int64] {
        throw StorageError.invalidRequest("this database returns no lists of integers")
    }
}
