/// A clause that shapes a query: ``Where``, ``OrderBy``, ``Tweak`` or ``GroupBy``.
///
/// In a query, `Tweak`'s `fetchLimit` and `fetchOffset` apply to the rows (to the groups of a
/// grouped query).
public protocol QueryClause {
    /// Applies the clause to the query being built. Clauses apply in the order given.
    func applyToQueryRequest(_ request: inout CoreStoreQueryRequest)
}

/// A query under construction. Its contents are managed by the clauses.
public struct CoreStoreQueryRequest {
    /// The filter, order and settings, shared with fetches.
    var fetchRequest: CoreStoreFetchRequest
    /// The grouping keys, in order.
    var groupBy: [String] = []
}

extension QueryClause where Self: FetchClause {
    /// Applies the clause as it applies to a fetch.
    public func applyToQueryRequest(_ request: inout CoreStoreQueryRequest) {
        applyToFetchRequest(&request.fetchRequest)
    }
}

extension Where: QueryClause {}
extension OrderBy: QueryClause {}
extension Tweak: QueryClause {}

/// Carries any fetch clause into a query (for `FetchChainBuilder.select`).
struct FetchClauseInQuery: QueryClause {
    let clause: any FetchClause

    func applyToQueryRequest(_ request: inout CoreStoreQueryRequest) {
        clause.applyToFetchRequest(&request.fetchRequest)
    }
}

/// Everything a query asks for, assembled from `From`, `Select` and the query clauses.
struct QuerySpecification {
    var fetch: CoreStoreFetchRequest
    var terms: [QueryTerm]
    var groupBy: [String]
}
