/// A `From` clause, a `Select` clause and other query clauses, built by chaining:
///
/// ```swift
/// let oldest = try dataStack.queryValue(
///     From<Person>().select(Int.self, .maximum(\.$age)).where(\.$age > 1)
/// )
/// let countsByAge = try dataStack.queryAttributes(
///     From<Person>().select(NSDictionary.self, .attribute(\.$age), .count(\.$age, as: "count")).groupBy(\.$age)
/// )
/// ```
public struct QueryChainBuilder<O: CoreStoreObject, T: SelectResultType> {
    /// The entity and configurations.
    public var from: From<O>
    /// The columns and result type.
    public var select: Select<O, T>
    /// The other clauses, applied in order.
    public var queryClauses: [any QueryClause]

    /// Creates a chain.
    public init(from: From<O>, select: Select<O, T>, queryClauses: [any QueryClause] = []) {
        self.from = from
        self.select = select
        self.queryClauses = queryClauses
    }

    /// Adds a filter (combined with earlier ones by AND).
    public func `where`(_ clause: Where<O>) -> QueryChainBuilder<O, T> {
        appending(clause)
    }

    /// Adds sort keys (in a grouped query, only grouping keys).
    public func orderBy(_ sortKey: OrderBy<O>.SortKey, _ otherSortKeys: OrderBy<O>.SortKey...) -> QueryChainBuilder<O, T> {
        appending(OrderBy([sortKey] + otherSortKeys))
    }

    /// Adds an `OrderBy` clause.
    public func orderBy(_ clause: OrderBy<O>) -> QueryChainBuilder<O, T> {
        appending(clause)
    }

    /// Adds a tweak; its limit and offset apply to the rows.
    public func tweak(_ closure: @escaping (inout FetchTweaks) -> Void) -> QueryChainBuilder<O, T> {
        appending(Tweak(closure))
    }

    /// Adds a `GroupBy` clause.
    public func groupBy(_ clause: GroupBy<O>) -> QueryChainBuilder<O, T> {
        appending(clause)
    }

    /// Groups by these stored keys.
    public func groupBy(_ keyPath: String, _ otherKeyPaths: String...) -> QueryChainBuilder<O, T> {
        appending(GroupBy([keyPath] + otherKeyPaths))
    }

    /// Groups by these fields: `.groupBy(\.$age)`, `.groupBy(\.$age, \.$name)`.
    public func groupBy<each V: FieldStorableType>(_ keyPath: repeat KeyPath<O, FieldDefinition.Stored<each V>>) -> QueryChainBuilder<O, T> {
        appending(GroupBy(repeat each keyPath))
    }

    /// Adds any clause.
    public func appending(_ clause: any QueryClause) -> QueryChainBuilder<O, T> {
        var copy = self
        copy.queryClauses.append(clause)
        return copy
    }

    func specification() -> QuerySpecification {
        var request = CoreStoreQueryRequest(fetchRequest: from.specification())
        for clause in queryClauses { clause.applyToQueryRequest(&request) }
        return QuerySpecification(fetch: request.fetchRequest, terms: select.selectTerms.map(\.term), groupBy: request.groupBy)
    }
}

extension From {
    /// Starts a query chain with columns and their result type: `.select(Int.self, .maximum(\.$age))`.
    public func select<T: SelectResultType>(_ resultType: T.Type, _ selectTerm: SelectTerm<O>, _ selectTerms: SelectTerm<O>...) -> QueryChainBuilder<O, T> {
        QueryChainBuilder(from: self, select: Select([selectTerm] + selectTerms))
    }

    /// Starts a query chain with a `Select` clause.
    public func select<T: SelectResultType>(_ clause: Select<O, T>) -> QueryChainBuilder<O, T> {
        QueryChainBuilder(from: self, select: clause)
    }

    /// Starts a query chain selecting a field, typed as the field's value: `.select(\.$age)`.
    public func select<V: QueryableAttributeType & FieldStorableType>(_ keyPath: KeyPath<O, FieldDefinition.Stored<V>>) -> QueryChainBuilder<O, V> {
        QueryChainBuilder(from: self, select: Select(.attribute(keyPath)))
    }

    /// Starts a query chain selecting an optional field, typed as its wrapped value.
    public func select<V: QueryableAttributeType & FieldStorableType>(_ keyPath: KeyPath<O, FieldDefinition.Stored<V?>>) -> QueryChainBuilder<O, V> {
        QueryChainBuilder(from: self, select: Select(.attribute(keyPath)))
    }

    func querySpecification<T>(_ select: Select<O, T>, _ clauses: [any QueryClause]) -> QuerySpecification {
        QueryChainBuilder(from: self, select: select, queryClauses: clauses).specification()
    }
}

extension FetchChainBuilder {
    /// Turns the fetch chain into a query chain with columns and their result type.
    public func select<T: SelectResultType>(_ resultType: T.Type, _ selectTerm: SelectTerm<O>, _ selectTerms: SelectTerm<O>...) -> QueryChainBuilder<O, T> {
        select(Select([selectTerm] + selectTerms))
    }

    /// Turns the fetch chain into a query chain with a `Select` clause.
    public func select<T: SelectResultType>(_ clause: Select<O, T>) -> QueryChainBuilder<O, T> {
        QueryChainBuilder(from: from, select: clause, queryClauses: fetchClauses.map { FetchClauseInQuery(clause: $0) })
    }

    /// Turns the fetch chain into a query chain selecting a field, typed as the field's value.
    public func select<V: QueryableAttributeType & FieldStorableType>(_ keyPath: KeyPath<O, FieldDefinition.Stored<V>>) -> QueryChainBuilder<O, V> {
        select(Select(.attribute(keyPath)))
    }

    /// Turns the fetch chain into a query chain selecting an optional field, typed as its
    /// wrapped value.
    public func select<V: QueryableAttributeType & FieldStorableType>(_ keyPath: KeyPath<O, FieldDefinition.Stored<V?>>) -> QueryChainBuilder<O, V> {
        select(Select(.attribute(keyPath)))
    }
}
