/// A `From` clause, a ``SectionBy`` and other clauses, for sectioned list monitors and
/// publishers: `From<Person>().sectionBy(\.$age).where(\.$age > 18).orderBy(.ascending(\.$age))`.
public struct SectionMonitorChainBuilder<O: CoreStoreObject> {
    /// The entity and configurations.
    public var from: From<O>
    /// How objects are grouped into sections.
    public var sectionBy: SectionBy<O>
    /// The clauses, applied in order.
    public var fetchClauses: [any FetchClause]

    /// Creates a chain.
    public init(from: From<O>, sectionBy: SectionBy<O>, fetchClauses: [any FetchClause] = []) {
        self.from = from
        self.sectionBy = sectionBy
        self.fetchClauses = fetchClauses
    }

    /// Adds a filter (combined with earlier ones by AND).
    public func `where`(_ clause: Where<O>) -> SectionMonitorChainBuilder<O> {
        appending(clause)
    }

    /// Adds sort keys; the first must be the section key.
    public func orderBy(_ sortKey: OrderBy<O>.SortKey, _ otherSortKeys: OrderBy<O>.SortKey...) -> SectionMonitorChainBuilder<O> {
        appending(OrderBy([sortKey] + otherSortKeys))
    }

    /// Adds a tweak.
    public func tweak(_ closure: @escaping (inout FetchTweaks) -> Void) -> SectionMonitorChainBuilder<O> {
        appending(Tweak(closure))
    }

    /// Adds any clause.
    public func appending(_ clause: any FetchClause) -> SectionMonitorChainBuilder<O> {
        var copy = self
        copy.fetchClauses.append(clause)
        return copy
    }
}

extension From {
    /// Starts a sectioned chain.
    public func sectionBy(_ sectionBy: SectionBy<O>) -> SectionMonitorChainBuilder<O> {
        SectionMonitorChainBuilder(from: self, sectionBy: sectionBy)
    }

    /// Starts a chain sectioned by a field.
    public func sectionBy<V: FieldStorableType>(_ keyPath: KeyPath<O, FieldDefinition.Stored<V>>, sectionIndexTransformer: @escaping @Sendable (_ sectionName: String?) -> String? = { $0 }) -> SectionMonitorChainBuilder<O> {
        SectionMonitorChainBuilder(from: self, sectionBy: SectionBy(keyPath, sectionIndexTransformer: sectionIndexTransformer))
    }
}

extension FetchChainBuilder {
    /// Groups the chain's objects into sections.
    public func sectionBy(_ sectionBy: SectionBy<O>) -> SectionMonitorChainBuilder<O> {
        SectionMonitorChainBuilder(from: from, sectionBy: sectionBy, fetchClauses: fetchClauses)
    }

    /// Groups the chain's objects into sections by a field.
    public func sectionBy<V: FieldStorableType>(_ keyPath: KeyPath<O, FieldDefinition.Stored<V>>, sectionIndexTransformer: @escaping @Sendable (_ sectionName: String?) -> String? = { $0 }) -> SectionMonitorChainBuilder<O> {
        sectionBy(SectionBy(keyPath, sectionIndexTransformer: sectionIndexTransformer))
    }
}
