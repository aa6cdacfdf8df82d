import Foundation

extension DataStack {
    /// A monitor of the objects matching the clauses, in their order.
    ///
    /// Throws a ``CoreStoreError`` for a request the schema rejects. Observers hear about
    /// changes on `deliveryQueue` (serial; the main queue by default).
    public func monitorList<O>(_ from: From<O>, _ fetchClauses: FetchClause..., deliveryQueue: DispatchQueue = .main) throws -> ListMonitor<O> {
        try monitorList(from, fetchClauses, deliveryQueue: deliveryQueue)
    }

    /// A monitor of the objects matching the clauses, in their order.
    public func monitorList<O>(_ from: From<O>, _ fetchClauses: [FetchClause], deliveryQueue: DispatchQueue = .main) throws -> ListMonitor<O> {
        try ListMonitor(dataStack: self, from: from, specification: from.specification(fetchClauses), sectionBy: nil, deliveryQueue: deliveryQueue)
    }

    /// A monitor of the objects matching a clause chain, in its order.
    public func monitorList<O>(_ clauseChain: FetchChainBuilder<O>, deliveryQueue: DispatchQueue = .main) throws -> ListMonitor<O> {
        try monitorList(clauseChain.from, clauseChain.fetchClauses, deliveryQueue: deliveryQueue)
    }

    /// A monitor of the objects matching the clauses, grouped into sections. The list must be
    /// ordered by the section key first (with no sort keys at all, it is ordered by the section
    /// key ascending).
    public func monitorSectionedList<O>(_ from: From<O>, _ sectionBy: SectionBy<O>, _ fetchClauses: FetchClause..., deliveryQueue: DispatchQueue = .main) throws -> ListMonitor<O> {
        try monitorSectionedList(from, sectionBy, fetchClauses, deliveryQueue: deliveryQueue)
    }

    /// A monitor of the objects matching the clauses, grouped into sections.
    public func monitorSectionedList<O>(_ from: From<O>, _ sectionBy: SectionBy<O>, _ fetchClauses: [FetchClause], deliveryQueue: DispatchQueue = .main) throws -> ListMonitor<O> {
        try ListMonitor(dataStack: self, from: from, specification: from.specification(fetchClauses), sectionBy: sectionBy, deliveryQueue: deliveryQueue)
    }

    /// A monitor of a sectioned clause chain: `From<Person>().sectionBy(\.$age).orderBy(.ascending(\.$age))`.
    public func monitorSectionedList<O>(_ clauseChain: SectionMonitorChainBuilder<O>, deliveryQueue: DispatchQueue = .main) throws -> ListMonitor<O> {
        try monitorSectionedList(clauseChain.from, clauseChain.sectionBy, clauseChain.fetchClauses, deliveryQueue: deliveryQueue)
    }
}

extension DataStack {
    /// A monitor of one object (from this stack or any of its transactions, once committed).
    /// Throws for an object that has not been committed yet.
    public func monitorObject<O: CoreStoreObject>(_ object: O, deliveryQueue: DispatchQueue = .main) throws -> ObjectMonitor<O> {
        guard let id = object.cs_id() else { throw CoreStoreError.invalidObject(message: "\(O.self) meta instances cannot be monitored") }
        return try ObjectMonitor(dataStack: self, objectID: id, deliveryQueue: deliveryQueue)
    }
}
