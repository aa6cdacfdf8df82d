import CoreStoreStorage

extension ObjectContext {
    /// The object to hand an observer for `id`: the context's live object when it still exists,
    /// otherwise a detached, deleted instance showing `lastKnown` (the values the commit saw).
    func observedObject(for id: ObjectID, lastKnown: Record?) -> CoreStoreObject? {
        if let live = object(for: id) { return live }
        guard let lastKnown, let store = gateway.store(withID: id.storeID) else { return nil }
        guard let entity = runtime.entitiesByName[lastKnown.id.entity] else { return nil }
        return makeInstance(of: entity, in: store, record: lastKnown, isCommitted: true, isDeleted: true)
    }
}
