import CoreStoreStorage

/// Where fetches run: a ``DataStack`` (committed data, read-only objects) or a transaction
/// (its own objects, pending changes included unless a ``Tweak`` says otherwise).
///
/// Every method throws a ``CoreStoreError`` for requests the schema rejects (a class that is
/// not an entity, a key that does not exist) or a store that fails.
public protocol FetchableSource: AnyObject {
    /// The context fetches run in. Used by the framework.
    func cs_fetchContext() throws -> FetchContext
}

/// An opaque handle to the object context behind a ``FetchableSource``.
public struct FetchContext {
    let context: ObjectContext
}

extension FetchableSource {
    /// The context behind this source, with any failure as a `CoreStoreError`.
    func context() throws(CoreStoreError) -> ObjectContext {
        do {
            return try cs_fetchContext().context
        } catch {
            throw CoreStoreError.wrap(error)
        }
    }

    // MARK: fetchAll

    /// All objects matching the clauses, in the requested order.
    public func fetchAll<O>(_ from: From<O>, _ fetchClauses: FetchClause...) throws -> [O] {
        try fetchAll(from, fetchClauses)
    }

    /// All objects matching the clauses, in the requested order.
    public func fetchAll<O>(_ from: From<O>, _ fetchClauses: [FetchClause]) throws -> [O] {
        try context().fetchObjects(from.specification(fetchClauses), as: O.self)
    }

    /// All objects matching a clause chain, in the requested order.
    public func fetchAll<O>(_ clauseChain: FetchChainBuilder<O>) throws -> [O] {
        try context().fetchObjects(clauseChain.specification(), as: O.self)
    }

    // MARK: fetchOne

    /// The first object matching the clauses, or `nil`.
    public func fetchOne<O>(_ from: From<O>, _ fetchClauses: FetchClause...) throws -> O? {
        try fetchOne(from, fetchClauses)
    }

    /// The first object matching the clauses, or `nil`.
    public func fetchOne<O>(_ from: From<O>, _ fetchClauses: [FetchClause]) throws -> O? {
        try fetchFirst(from.specification(fetchClauses))
    }

    /// The first object matching a clause chain, or `nil`.
    public func fetchOne<O>(_ clauseChain: FetchChainBuilder<O>) throws -> O? {
        try fetchFirst(clauseChain.specification())
    }

    private func fetchFirst<O: CoreStoreObject>(_ specification: CoreStoreFetchRequest) throws -> O? {
        var spec = specification
        spec.tweaks.fetchLimit = 1
        return try context().fetchObjects(spec, as: O.self).first
    }

    // MARK: fetchCount

    /// The number of objects matching the clauses.
    public func fetchCount<O>(_ from: From<O>, _ fetchClauses: FetchClause...) throws -> Int {
        try fetchCount(from, fetchClauses)
    }

    /// The number of objects matching the clauses.
    public func fetchCount<O>(_ from: From<O>, _ fetchClauses: [FetchClause]) throws -> Int {
        try context().fetchCount(from.specification(fetchClauses))
    }

    /// The number of objects matching a clause chain.
    public func fetchCount<O>(_ clauseChain: FetchChainBuilder<O>) throws -> Int {
        try context().fetchCount(clauseChain.specification())
    }

    // MARK: fetchObjectIDs

    /// The identifiers of all objects matching the clauses, in the requested order.
    public func fetchObjectIDs<O>(_ from: From<O>, _ fetchClauses: FetchClause...) throws -> [ObjectID] {
        try fetchObjectIDs(from, fetchClauses)
    }

    /// The identifiers of all objects matching the clauses, in the requested order.
    public func fetchObjectIDs<O>(_ from: From<O>, _ fetchClauses: [FetchClause]) throws -> [ObjectID] {
        try context().fetchObjectIDs(from.specification(fetchClauses))
    }

    /// The identifiers of all objects matching a clause chain, in the requested order.
    public func fetchObjectIDs<O>(_ clauseChain: FetchChainBuilder<O>) throws -> [ObjectID] {
        try context().fetchObjectIDs(clauseChain.specification())
    }

    // MARK: fetchObjectID

    /// The identifier of the first object matching the clauses, or `nil`.
    public func fetchObjectID<O>(_ from: From<O>, _ fetchClauses: FetchClause...) throws -> ObjectID? {
        try fetchObjectID(from, fetchClauses)
    }

    /// The identifier of the first object matching the clauses, or `nil`.
    public func fetchObjectID<O>(_ from: From<O>, _ fetchClauses: [FetchClause]) throws -> ObjectID? {
        var spec = from.specification(fetchClauses)
        spec.tweaks.fetchLimit = 1
        return try context().fetchObjectIDs(spec).first
    }

    /// The identifier of the first object matching a clause chain, or `nil`.
    public func fetchObjectID<O>(_ clauseChain: FetchChainBuilder<O>) throws -> ObjectID? {
        var spec = clauseChain.specification()
        spec.tweaks.fetchLimit = 1
        return try context().fetchObjectIDs(spec).first
    }

    // MARK: fetchExisting

    /// This source's instance of an object from another context of the same stack, or `nil`
    /// if it does not exist here (deleted, not yet committed, or from another stack).
    public func fetchExisting<O: CoreStoreObject>(_ object: O) -> O? {
        guard let id = object.cs_id() else { return nil }
        if let context = try? context(), object.cs_state?.context === context {
            // Its store may have been removed from the stack since it was fetched.
            return object.cs_isDeleted() || context.gateway.store(withID: id.storeID) == nil ? nil : object
        }
        return fetchExisting(id)
    }

    /// The object with this identifier in this source, or `nil` if it does not exist here.
    public func fetchExisting<O: CoreStoreObject>(_ objectID: ObjectID) -> O? {
        guard let context = try? context() else { return nil }
        return context.object(for: objectID) as? O
    }

    /// This source's instances of the objects that exist here, in order.
    public func fetchExisting<O: CoreStoreObject, S: Sequence>(_ objects: S) -> [O] where S.Element == O {
        objects.compactMap { fetchExisting($0) }
    }

    /// The objects with these identifiers that exist here, in order.
    public func fetchExisting<O: CoreStoreObject, S: Sequence>(_ objectIDs: S) -> [O] where S.Element == ObjectID {
        objectIDs.compactMap { fetchExisting($0) }
    }
}
