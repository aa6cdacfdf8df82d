import Foundation

extension DataStack {
    /// A publisher of the objects matching the clauses, in their order.
    public func publishList<O>(_ from: From<O>, _ fetchClauses: FetchClause..., deliveryQueue: DispatchQueue = .main) throws -> ListPublisher<O> {
        try publishList(from, fetchClauses, deliveryQueue: deliveryQueue)
    }

    /// A publisher of the objects matching the clauses, in their order.
    public func publishList<O>(_ from: From<O>, _ fetchClauses: [FetchClause], deliveryQueue: DispatchQueue = .main) throws -> ListPublisher<O> {
        ListPublisher(monitor: try monitorList(from, fetchClauses, deliveryQueue: deliveryQueue))
    }

    /// A publisher of a clause chain.
    public func publishList<O>(_ clauseChain: FetchChainBuilder<O>, deliveryQueue: DispatchQueue = .main) throws -> ListPublisher<O> {
        ListPublisher(monitor: try monitorList(clauseChain, deliveryQueue: deliveryQueue))
    }

    /// A publisher of a sectioned clause chain.
    public func publishList<O>(_ clauseChain: SectionMonitorChainBuilder<O>, deliveryQueue: DispatchQueue = .main) throws -> ListPublisher<O> {
        ListPublisher(monitor: try monitorSectionedList(clauseChain, deliveryQueue: deliveryQueue))
    }

    /// A publisher of one object.
    public func publishObject<O: CoreStoreObject>(_ object: O, deliveryQueue: DispatchQueue = .main) -> ObjectPublisher<O> {
        let id = object.cs_id() ?? ObjectID(storeID: 0, recordID: .init(entity: "\(O.self)", key: 0))
        return ObjectPublisher(dataStack: self, objectID: id, deliveryQueue: deliveryQueue)
    }

    /// A publisher of the object with this identifier.
    public func publishObject<O: CoreStoreObject>(_ objectID: ObjectID, deliveryQueue: DispatchQueue = .main) -> ObjectPublisher<O> {
        ObjectPublisher(dataStack: self, objectID: objectID, deliveryQueue: deliveryQueue)
    }
}
