/// A `From` clause followed by other clauses, built by chaining:
/// `From<Person>().where(\.$age > 30).orderBy(.ascending(\.$name)).tweak { $0.fetchLimit = 5 }`.
public struct FetchChainBuilder<O: CoreStoreObject> {
    /// The entity and configurations.
    public var from: From<O>
    /// The clauses, applied in order.
    public var fetchClauses: [any FetchClause]

    /// Creates a chain.
    public init(from: From<O>, fetchClauses: [any FetchClause] = []) {
        self.from = from
        self.fetchClauses = fetchClauses
    }

    /// Adds a filter (combined with earlier ones by AND).
    public func `where`(_ clause: Where<O>) -> FetchChainBuilder<O> {
        appending(clause)
    }

    /// Adds sort keys.
    public func orderBy(_ sortKey: OrderBy<O>.SortKey, _ otherSortKeys: OrderBy<O>.SortKey...) -> FetchChainBuilder<O> {
        appending(OrderBy([sortKey] + otherSortKeys))
    }

    /// Adds an `OrderBy` clause.
    public func orderBy(_ clause: OrderBy<O>) -> FetchChainBuilder<O> {
        appending(clause)
    }

    /// Adds a tweak.
    public func tweak(_ closure: @escaping (inout FetchTweaks) -> Void) -> FetchChainBuilder<O> {
        appending(Tweak(closure))
    }

    /// Adds any clause.
    public func appending(_ clause: any FetchClause) -> FetchChainBuilder<O> {
        var copy = self
        copy.fetchClauses.append(clause)
        return copy
    }

    func specification() -> CoreStoreFetchRequest {
        var request = from.specification()
        for clause in fetchClauses { clause.applyToFetchRequest(&request) }
        return request
    }
}

extension From {
    /// Starts a chain with a filter.
    public func `where`(_ clause: Where<O>) -> FetchChainBuilder<O> {
        FetchChainBuilder(from: self, fetchClauses: [clause])
    }

    /// Starts a chain with sort keys.
    public func orderBy(_ sortKey: OrderBy<O>.SortKey, _ otherSortKeys: OrderBy<O>.SortKey...) -> FetchChainBuilder<O> {
        FetchChainBuilder(from: self, fetchClauses: [OrderBy([sortKey] + otherSortKeys)])
    }

    /// Starts a chain with a tweak.
    public func tweak(_ closure: @escaping (inout FetchTweaks) -> Void) -> FetchChainBuilder<O> {
        FetchChainBuilder(from: self, fetchClauses: [Tweak(closure)])
    }

    func specification(_ clauses: [any FetchClause]) -> CoreStoreFetchRequest {
        FetchChainBuilder(from: self, fetchClauses: clauses).specification()
    }
}
