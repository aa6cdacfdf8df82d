import CoreStoreStorage

/// A filter for fetches, queries and `deleteAll`.
///
/// Build it from field key paths and operators, combine with `&&`, `||` and `!`:
/// ```swift
/// try dataStack.fetchAll(From<Person>().where(\.$age > 30 && \.$name != "John"))
/// try dataStack.fetchAll(From<Person>().where(\.$nickname == nil))
/// try dataStack.fetchAll(From<Person>().where(\.$age ~= [20, 30, 40]))
/// Where<Person>(true)   // everything;  Where<Person>(false): nothing
/// ```
public struct Where<O: CoreStoreObject>: FetchClause {
    /// The predicate tree handed to the stores.
    public let predicate: RecordPredicate

    /// Why this filter could not be built (a malformed format string, say). `Where` itself never
    /// throws: the fetch, query or delete that uses it throws this error instead.
    public let error: CoreStoreError?

    /// A constant filter: `true` keeps every object, `false` none.
    public init(_ value: Bool) {
        self.init(.constant(value))
    }

    /// The filter that keeps every object, as `Where(true)`.
    public init() {
        self.init(true)
    }

    /// A filter from a predicate tree (for engine-level code and advanced uses).
    public init(_ predicate: RecordPredicate) {
        self.predicate = predicate
        self.error = nil
    }

    /// A filter that could not be built; every request that uses it throws `error`.
    init(failing error: CoreStoreError) {
        self.predicate = .constant(false)
        self.error = error
    }

    init(_ predicate: RecordPredicate, error: CoreStoreError?) {
        self.predicate = predicate
        self.error = error
    }

    /// Adds this filter to the request, in conjunction with any earlier one.
    public func applyToFetchRequest(_ request: inout CoreStoreFetchRequest) {
        if let error, request.error == nil {
            request.error = error
        }
        if let existing = request.predicate {
            request.predicate = existing && predicate
        } else {
            request.predicate = predicate
        }
    }

    /// Both filters.
    public static func && (lhs: Where, rhs: Where) -> Where {
        Where(lhs.predicate && rhs.predicate, error: lhs.error ?? rhs.error)
    }

    /// Either filter.
    public static func || (lhs: Where, rhs: Where) -> Where {
        Where(lhs.predicate || rhs.predicate, error: lhs.error ?? rhs.error)
    }

    /// The opposite filter.
    public static prefix func ! (operand: Where) -> Where {
        Where(!operand.predicate, error: operand.error)
    }
}
