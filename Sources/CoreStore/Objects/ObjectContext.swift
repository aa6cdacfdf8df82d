import Foundation
import CoreStoreStorage

/// A set of live objects and, for transactions, their pending changes.
///
/// The `DataStack` owns one read-only context whose objects follow every commit; each
/// transaction owns a writable one. A context keeps at most one object per stored record (its
/// identity map). The read-only context holds its objects weakly; a transaction strongly, until
/// it ends.
final class ObjectContext: @unchecked Sendable {
    weak var stack: DataStack?
    let runtime: RuntimeSchema
    let isReadOnly: Bool
    let lock = NSRecursiveLock()

    private var strongObjects: [ObjectID: CoreStoreObject] = [:]
    private var weakObjects: [ObjectID: WeakObject] = [:]
    /// The size of ``weakObjects`` at which entries of released objects are next swept out.
    private var weakObjectsSweepThreshold = 1024
    /// The key of the next inserted object's temporary identifier; counts down from -1.
    private(set) var nextTemporaryKey: Int64 = -1

    // Pending changes (transactions only).
    var inserted: [ObjectID: ObjectState] = [:]
    var insertionOrder: [ObjectID] = []
    var changed: [ObjectID: ObjectState] = [:]
    var deleted: [ObjectID: ObjectState] = [:]
    /// Misuse detected inside non-throwing API (setters, `create`); fails the next commit.
    var pendingErrors: [CoreStoreError] = []
    /// False once a closure transaction has ended; its objects can no longer change.
    var isActive = true
    /// The journals of the all-or-nothing steps in progress, innermost last.
    var journals: [ChangeJournal] = []
    /// For each store (by `AttachedStore.id`), its commit sequence while every committed value
    /// this transaction read is still what the store holds (see `ChangeSet.baseSequence`).
    var baseSequences: [UInt64: UInt64] = [:]

    init(stack: DataStack? = nil, runtime: RuntimeSchema, isReadOnly: Bool) {
        self.stack = stack
        self.runtime = runtime
        self.isReadOnly = isReadOnly
    }

    var hasChanges: Bool {
        lock.withLock { !inserted.isEmpty || !changed.isEmpty || !deleted.isEmpty }
    }

    // MARK: Identity map

    func registered(_ id: ObjectID) -> CoreStoreObject? {
        isReadOnly ? weakObjects[id]?.object : strongObjects[id]
    }

    private func register(_ object: CoreStoreObject, as id: ObjectID) {
        if isReadOnly {
            weakObjects[id] = WeakObject(object)
            if weakObjects.count >= weakObjectsSweepThreshold { sweepReleasedObjects(making: 0) }
        } else {
            strongObjects[id] = object
        }
    }

    /// Makes room for `count` more registrations at once (a fetch), so the identity map is
    /// swept and grown once instead of step by step while the objects are made.
    func reserveRegistrations(_ count: Int) {
        if isReadOnly {
            if weakObjects.count + count >= weakObjectsSweepThreshold { sweepReleasedObjects(making: count) }
            weakObjects.reserveCapacity(weakObjects.count + count)
        } else {
            strongObjects.reserveCapacity(strongObjects.count + count)
        }
    }

    /// Drops the entries of released objects. The next sweep comes when the map has doubled
    /// again: amortized O(1) per registration however many objects stay alive.
    private func sweepReleasedObjects(making room: Int) {
        weakObjects = weakObjects.filter { $0.value.object != nil }
        weakObjectsSweepThreshold = max(1024, (weakObjects.count + room) * 2)
    }

    /// Every live object's state in this context.
    func allStates() -> [ObjectState] {
        let objects: [CoreStoreObject] = isReadOnly ? weakObjects.values.compactMap(\.object) : Array(strongObjects.values)
        return objects.compactMap(\.cs_state)
    }

    func dropRegistration(_ id: ObjectID) {
        unregister(id)
    }

    private func unregister(_ id: ObjectID) {
        weakObjects[id] = nil
        strongObjects[id] = nil
    }

    /// The context's object for a committed record, created on first sight.
    func object(for record: Record, in store: AttachedStore) -> CoreStoreObject? {
        lock.withLock {
            let id = ObjectID(storeID: store.id, recordID: record.id)
            if let existing = registered(id) { return existing }
            guard let entity = runtime.entitiesByName[record.id.entity] else { return nil }
            let state = ObjectState(context: self, entity: entity, store: store, record: record, committed: record)
            let object = entity.type.init(rawObject: CoreStoreObject.RawObject(state: state))
            state.object = object
            register(object, as: id)
            return object
        }
    }

    /// The context's objects for these record identifiers of one store, in order, skipping
    /// records that no longer exist. Reads what is not yet registered in one snapshot.
    func objects(for ids: [RecordID], in store: AttachedStore) -> [CoreStoreObject] {
        lock.withLock {
            var loaded: [Int64: CoreStoreObject] = [:]
            var missing: [RecordID] = []
            for id in ids where !id.isTemporary {
                if let existing = registered(ObjectID(storeID: store.id, recordID: id)) {
                    loaded[id.key] = existing
                } else {
                    missing.append(id)
                }
            }
            if !missing.isEmpty {
                do {
                    let records = try store.storage.read { try $0.records(missing) }
                    for record in records.compactMap({ $0 }) {
                        loaded[record.id.key] = object(for: record, in: store)
                    }
                } catch {
                    Log.error(CoreStoreError.wrap(error), "Reading related objects failed.")
                }
            }
            return ids.compactMap { id in
                let object = id.isTemporary ? registered(ObjectID(storeID: store.id, recordID: id)) : loaded[id.key]
                guard let object, object.cs_state?.isDeleted == false else { return nil }
                return object
            }
        }
    }

    /// The context's object for an identifier, or `nil` if it does not exist (any more) here.
    func object(for id: ObjectID) -> CoreStoreObject? {
        guard let store = stack?.store(withID: id.storeID) else { return nil }
        return objects(for: [id.recordID], in: store).first
    }

    /// Inserts a new object of `entity` into `store`.
    func insert(_ entity: EntityMetadata, into store: AttachedStore) -> CoreStoreObject {
        lock.withLock {
            let recordID = RecordID(entity: entity.name, key: nextTemporaryKey)
            nextTemporaryKey -= 1
            let state = ObjectState(context: self, entity: entity, store: store, record: entity.initialRecord(id: recordID), committed: nil)
            let object = entity.type.init(rawObject: CoreStoreObject.RawObject(state: state))
            state.object = object
            let id = ObjectID(storeID: store.id, recordID: recordID)
            register(object, as: id)
            inserted[id] = state
            insertionOrder.append(id)
            return object
        }
    }

    // MARK: Merging commits (read-only context)

    /// Brings registered objects up to date with a commit. Unregistered records need nothing:
    /// they are read fresh when first fetched.
    func merge(_ change: StoreCommit) {
        lock.withLock {
            for record in change.updated {
                let id = ObjectID(storeID: change.store.id, recordID: record.id)
                guard let state = registered(id)?.cs_state else { continue }
                state.attributes = record.attributes
                state.relationships = record.relationships
                state.committed = record
            }
            for recordID in change.deleted {
                let id = ObjectID(storeID: change.store.id, recordID: recordID)
                registered(id)?.cs_state?.isDeleted = true
                unregister(id)
            }
        }
    }

    // MARK: Rekeying after a commit (transactions)

    func rekey(_ state: ObjectState, from old: ObjectID, to new: ObjectID) {
        if let object = registered(old) {
            unregister(old)
            register(object, as: new)
        }
        state.recordID = new.recordID
    }

    func dropAllObjects() {
        lock.withLock {
            strongObjects.removeAll()
            inserted.removeAll()
            insertionOrder.removeAll()
            changed.removeAll()
            deleted.removeAll()
            pendingErrors.removeAll()
            journals.removeAll()
        }
    }
}

/// An identity-map entry of the read-only context: it does not keep the object alive.
private struct WeakObject {
    weak var object: CoreStoreObject?
    init(_ object: CoreStoreObject) { self.object = object }
}
