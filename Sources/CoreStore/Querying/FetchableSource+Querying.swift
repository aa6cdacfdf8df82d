import Foundation
import CoreStoreStorage

/// Queries: raw values and aggregates instead of objects.
///
/// ```swift
/// let oldest = try dataStack.queryValue(From<Person>(), Select<Person, Int>(.maximum(\.$age)))
/// let byAge = try dataStack.queryAttributes(
///     From<Person>(), Select("age", .count("age", as: "count")), GroupBy("age")
/// )
/// ```
/// Unlike Core Data, a query inside a transaction sees its pending changes (unless a
/// ``Tweak`` sets `includesPendingChanges` to `false`), exactly as a fetch does.
extension FetchableSource {
    // MARK: queryValue

    /// The first column of the first row, or `nil` when there is no row or the value is `nil`.
    public func queryValue<O, T: QueryableAttributeType>(_ from: From<O>, _ selectClause: Select<O, T>, _ queryClauses: any QueryClause...) throws(CoreStoreError) -> T? {
        try queryValue(from, selectClause, queryClauses)
    }

    /// The first column of the first row, or `nil` when there is no row or the value is `nil`.
    public func queryValue<O, T: QueryableAttributeType>(_ from: From<O>, _ selectClause: Select<O, T>, _ queryClauses: [any QueryClause]) throws(CoreStoreError) -> T? {
        try firstValue(from.querySpecification(selectClause, queryClauses), as: T.self)
    }

    /// The first column of the first row of a query chain, or `nil`.
    public func queryValue<O, T: QueryableAttributeType>(_ clauseChain: QueryChainBuilder<O, T>) throws(CoreStoreError) -> T? {
        try firstValue(clauseChain.specification(), as: T.self)
    }

    private func firstValue<T: QueryableAttributeType>(_ specification: QuerySpecification, as type: T.Type) throws(CoreStoreError) -> T? {
        var spec = specification
        spec.fetch.tweaks.fetchLimit = 1
        return try context().queryRows(spec).first?.first?.converted(to: T.self)
    }

    // MARK: queryAttributes

    /// One dictionary per row, keyed by each column's alias; `nil` values are left out.
    public func queryAttributes<O>(_ from: From<O>, _ selectClause: Select<O, NSDictionary>, _ queryClauses: any QueryClause...) throws(CoreStoreError) -> [[String: Any]] {
        try queryAttributes(from, selectClause, queryClauses)
    }

    /// One dictionary per row, keyed by each column's alias; `nil` values are left out.
    public func queryAttributes<O>(_ from: From<O>, _ selectClause: Select<O, NSDictionary>, _ queryClauses: [any QueryClause]) throws(CoreStoreError) -> [[String: Any]] {
        try dictionaries(from.querySpecification(selectClause, queryClauses))
    }

    /// One dictionary per row of a query chain; `nil` values are left out.
    public func queryAttributes<O>(_ clauseChain: QueryChainBuilder<O, NSDictionary>) throws(CoreStoreError) -> [[String: Any]] {
        try dictionaries(clauseChain.specification())
    }

    private func dictionaries(_ spec: QuerySpecification) throws(CoreStoreError) -> [[String: Any]] {
        try context().queryRows(spec).map { row in
            var dictionary: [String: Any] = [:]
            for (term, cell) in zip(spec.terms, row) {
                if let value = cell.naturalValue { dictionary[term.alias] = value }
            }
            return dictionary
        }
    }
}
