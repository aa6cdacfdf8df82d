import Foundation
import CoreStoreStorage

/// A set of live objects and, for transactions, their pending changes.
///
/// The `DataStack` owns one read-only context whose objects follow every commit; each
/// transaction owns a writable one. A context keeps at most one object per stored record (its
/// identity map) and reaches storage only through the ``StorageGateway`` it was given.
///
/// Storage is read outside the context's lock; only registering what was read takes it. A
/// commit merged while a read was under way is applied to what the read brought back (see
/// ``MergeLog``), so a new object never starts with values older than a merge it missed.
final class ObjectContext: @unchecked Sendable {
    let gateway: StorageGateway
    let runtime: RuntimeSchema
    let isReadOnly: Bool
    let lock = ContextLock()

    /// The identity map. It holds its objects strongly; the read-only context drops the ones
    /// nobody else holds when the map has doubled (``finishRegistrations(callerReads:heldByCaller:)``), a
    /// transaction's context drops all of them when the transaction ends.
    @exclusivity(unchecked) private var registeredObjects = IdentityMap()
    /// Whether ``dropAllObjects()`` ended the context: it registers nothing any more.
    private var isFinished = false
    /// The size of the read-only context's map at which unreferenced objects are next dropped.
    private var sweepThreshold = 1024
    /// The commits merged while reads were under way.
    @exclusivity(unchecked) private var mergeLog = MergeLog()
    /// The entity of the last object made, unretained (``runtime`` holds it; call with the
    /// lock held).
    @exclusivity(unchecked) private var lastEntity: Unmanaged<EntityMetadata>?

    // Pending changes (transactions only), read and written under the lock (hence no dynamic
    // exclusivity checks).
    /// The objects inserted by this transaction, in insertion order (deleted ones included,
    /// marked `isDeleted`).
    @exclusivity(unchecked) var inserted: [ObjectState] = []
    /// The committed objects this transaction changed. An ``IdentityMap``, not a dictionary: a
    /// setter marks its object on every call, and the map finds it by two integers instead
    /// of hashing an identifier that carries the entity name.
    @exclusivity(unchecked) var changed = IdentityMap()
    @exclusivity(unchecked) var deleted: [ObjectID: ObjectState] = [:]
    /// Records deleted without objects (``deleteMatching(_:)``).
    @exclusivity(unchecked) var recordDeletes = RecordDeletes()
    /// Misuse detected inside non-throwing API (setters, `create`); fails the next commit.
    @exclusivity(unchecked) var pendingErrors: [CoreStoreError] = []
    /// False once a closure transaction has ended; its objects can no longer change.
    var isActive = true
    /// The journals of the all-or-nothing steps in progress, innermost last (an undo group's,
    /// when the transaction supports undo, is the outermost).
    @exclusivity(unchecked) var journals: [ChangeJournal] = []
    /// The undo and redo steps of a transaction begun with `beginUnsafe(supportsUndo: true)`.
    @exclusivity(unchecked) var undoHistory: UndoHistory?
    /// For each store (by `AttachedStore.id`), its commit sequence while every committed value
    /// this transaction read is still what the store holds (see `ChangeSet.baseSequence`).
    var baseSequences: [UInt64: UInt64] = [:]
    /// The transaction's `sourceIdentifier`, given to the observers of its commits.
    var sourceIdentifier = SourceIdentifierBox.none

    init(gateway: StorageGateway, isReadOnly: Bool) {
        self.gateway = gateway
        self.runtime = gateway.runtime
        self.isReadOnly = isReadOnly
    }

    var hasChanges: Bool {
        lock.withLock { !inserted.isEmpty || !changed.isEmpty || !deleted.isEmpty || !recordDeletes.isEmpty }
    }

    // MARK: Identity map

    func registered(_ id: ObjectID) -> CoreStoreObject? {
        registeredObjects[id]
    }

    func register(_ object: CoreStoreObject, as id: ObjectID) {
        guard !isFinished else { return }
        registeredObjects[id] = object
    }

    /// Makes room for `count` more registrations at once (a fetch), so the identity map is
    /// grown once instead of step by step while the objects are made.
    func reserveRegistrations(_ count: Int) {
        registeredObjects.reserveCapacity(registeredObjects.count + count)
    }

    /// Begins a batch of registrations of objects of one store (call with the lock held, and
    /// end it with ``endRegistrationBatch(keys:of:)`` before releasing the lock): their keys
    /// join the known keys (``knownRecordKeys(of:)``) all at once at the end.
    func beginRegistrationBatch() {
        registeredObjects.beginDeferringKnownKeys()
    }

    /// Ends the batch begun by ``beginRegistrationBatch()``; `keys` must include the key of
    /// every object the batch registered, all of `store`.
    func endRegistrationBatch(keys: [Int64], of store: AttachedStore) {
        registeredObjects.endDeferringKnownKeys(keys, of: store.id)
    }

    /// Ends a batch of registrations (call with the lock held, while the caller still holds the
    /// objects it wants). The read-only context then drops the objects only its map holds:
    /// nobody can reach them but through a new fetch, which makes them again. The next sweep
    /// comes when the map has doubled again: amortized O(1) per registration however many
    /// objects stay alive.
    ///
    /// No sweep runs while another read is under way: that read may have told its store which
    /// objects the context holds (``FetchRequest/knownRecords``) and counts on finding them.
    /// `callerReads` is how many of the reads under way are the caller's own (not yet ended).
    ///
    /// `heldByCaller` is how many of the registered objects the caller holds (a fetch's own
    /// results), which no sweep can drop: when the others are fewer than half the threshold,
    /// the sweep would walk the whole table to drop at most those few, so it waits for the next
    /// doubling instead (the first large fetch into an empty context sweeps nothing). The
    /// objects held only here stay bounded by the threshold as before.
    func finishRegistrations(callerReads: Int = 0, heldByCaller: Int = 0) {
        guard isReadOnly, registeredObjects.count >= sweepThreshold, mergeLog.readsUnderWay <= callerReads else { return }
        if registeredObjects.count - heldByCaller >= sweepThreshold / 2 {
            registeredObjects.removeUnreferenced(keepingRoomFor: 0)
        }
        sweepThreshold = max(1024, registeredObjects.count * 2)
    }

    /// Every live object's state in this context.
    func allStates() -> [ObjectState] {
        registeredObjects.objects
    }

    func dropRegistration(_ id: ObjectID) {
        registeredObjects[id] = nil
    }

    // MARK: Making objects from what storage returned

    /// A read of storage in progress: where the merges stood when it began.
    struct ReadTicket {
        fileprivate let generation: UInt64
    }

    /// Notes that a read of storage begins (call with the lock held).
    func beginRead() -> ReadTicket {
        ReadTicket(generation: mergeLog.beginRead())
    }

    /// Notes that a read of storage has been registered (call with the lock held).
    func endRead(_ ticket: ReadTicket) {
        mergeLog.endRead(ticket.generation)
    }

    /// The context's object for a record read from `store` since `ticket`, made on first sight
    /// (call with the lock held). `nil` when a commit merged since deleted the record, or this
    /// transaction deleted it as a record.
    func object(for record: Record, in store: AttachedStore, readSince ticket: ReadTicket) -> CoreStoreObject? {
        withUnsafePointer(to: record) { object(forRecordAt: UnsafeMutablePointer(mutating: $0), in: store, readSince: ticket, takingRecord: false) }
    }

    /// ``object(for:in:readSince:)`` for a record read in place (a fetch's result array): the
    /// record is not copied on its way into the object's initializer, and the lookups use the
    /// store and record key alone, not an ``ObjectID`` (which copies the name).
    ///
    /// With `takingRecord`, a new object takes the record's values, leaving empty ones behind
    /// (see ``CoreStoreObject/RawObject``): the caller's array then releases nothing of them.
    func object(forRecordAt record: UnsafeMutablePointer<Record>, in store: AttachedStore, readSince ticket: ReadTicket, takingRecord: Bool) -> CoreStoreObject? {
        let storeID = store.id, key = record.pointee.id.key
        if let existing = registeredObjects[storeID: storeID, key: key] { return existing }
        if !recordDeletes.isEmpty && recordDeletes.contains(storeID: storeID, key: key) { return nil }
        if let merged = mergeLog.version(of: record.pointee.id, in: storeID, since: ticket.generation) {
            guard let merged else { return nil }
            return makeObject(for: merged, in: store)
        }
        return makeObject(forRecordAt: record, in: store, takingRecord: takingRecord)
    }

    /// The object held for record `key` of `store`, if any (call with the lock held).
    func registeredObject(key: Int64, in store: AttachedStore) -> CoreStoreObject? {
        registeredObjects[storeID: store.id, key: key]
    }

    /// Whether ``object(forRecordAt:in:readSince:takingRecord:)`` would make a new object from
    /// the record's values: no object is held for it, and no merge since `ticket` replaced or
    /// deleted it (call with the lock held).
    func needsValues(ofRecordAt record: UnsafeMutablePointer<Record>, in store: AttachedStore, readSince ticket: ReadTicket) -> Bool {
        let storeID = store.id, key = record.pointee.id.key
        if registeredObjects[storeID: storeID, key: key] != nil { return false }
        if !recordDeletes.isEmpty && recordDeletes.contains(storeID: storeID, key: key) { return false }
        return mergeLog.version(of: record.pointee.id, in: storeID, since: ticket.generation) == nil
    }

    /// The keys of the objects the context holds from `store`, as a snapshot for a read on
    /// another thread (``FetchRequest/knownRecords``); `nil` when it holds none (call with
    /// the lock held).
    func knownRecordKeys(of store: AttachedStore) -> KnownRecordKeys? {
        registeredObjects.knownKeys(of: store.id)
    }

    /// Makes and registers the committed object of `record` of `store`.
    func makeObject(for record: Record, in store: AttachedStore) -> CoreStoreObject? {
        withUnsafePointer(to: record) { makeObject(forRecordAt: UnsafeMutablePointer(mutating: $0), in: store, takingRecord: false) }
    }

    private func makeObject(forRecordAt record: UnsafeMutablePointer<Record>, in store: AttachedStore, takingRecord: Bool) -> CoreStoreObject? {
        // Unretained: the context's model holds every entity for as long as the context lives,
        // and a fetch makes one object per row (each retain and release is an atomic operation).
        guard let entity = unretainedEntity(named: record.pointee.id.entity) else { return nil }
        let key = record.pointee.id.key
        let object = makeInstance(of: entity, in: store, recordAt: record, takingRecord: takingRecord, isCommitted: true, isDeleted: false)
        if !isFinished { registeredObjects.insert(object, storeID: store.id, key: key) }
        return object
    }

    /// A new instance of `entity`'s class in `store` holding `record`: the one place objects are
    /// made (the handle it passes borrows everything for the initializer's call).
    func makeInstance(of entity: EntityMetadata, in store: AttachedStore, record: Record, isCommitted: Bool, isDeleted: Bool = false) -> CoreStoreObject {
        withUnsafePointer(to: record) {
            makeInstance(of: entity, in: store, recordAt: UnsafeMutablePointer(mutating: $0), takingRecord: false, isCommitted: isCommitted, isDeleted: isDeleted)
        }
    }

    private func makeInstance(of entity: EntityMetadata, in store: AttachedStore, recordAt record: UnsafeMutablePointer<Record>, takingRecord: Bool, isCommitted: Bool, isDeleted: Bool) -> CoreStoreObject {
        makeInstance(of: .passUnretained(entity), in: store, recordAt: record, takingRecord: takingRecord, isCommitted: isCommitted, isDeleted: isDeleted)
    }

    /// ``makeInstance(of:in:record:isCommitted:isDeleted:)`` for an entity the caller borrows.
    private func makeInstance(of entity: Unmanaged<EntityMetadata>, in store: AttachedStore, recordAt record: UnsafeMutablePointer<Record>, takingRecord: Bool, isCommitted: Bool, isDeleted: Bool) -> CoreStoreObject {
        entity._withUnsafeGuaranteedRef { $0.type }.init(rawObject: CoreStoreObject.RawObject(
            context: .passUnretained(self), entity: entity, store: .passUnretained(store),
            record: record, takesRecord: takingRecord, isCommitted: isCommitted, isDeleted: isDeleted
        ))
    }

    /// The entity of a record; the last one found answers again without hashing its name.
    func entity(named name: String) -> EntityMetadata? {
        unretainedEntity(named: name)?.takeUnretainedValue()
    }

    /// ``entity(named:)`` without a reference count: the context's model keeps every entity
    /// alive for as long as the context lives.
    private func unretainedEntity(named name: String) -> Unmanaged<EntityMetadata>? {
        if let last = lastEntity, last._withUnsafeGuaranteedRef({ $0.nameBits == StringBits(name) }) { return last }
        guard let entity = runtime.entitiesByName[name] else { return nil }
        lastEntity = .passUnretained(entity)
        return lastEntity
    }

    /// The context's objects for these record identifiers of one store, in order, skipping
    /// records that no longer exist. Reads what is not yet registered in one snapshot, outside
    /// the lock.
    func objects(for ids: [RecordID], in store: AttachedStore) -> [CoreStoreObject] {
        var loaded: [Int64: CoreStoreObject] = [:]
        var missing: [RecordID] = []
        let ticket: ReadTicket? = lock.withLock {
            for id in ids where !id.isTemporary {
                if let existing = registered(ObjectID(storeID: store.id, recordID: id)) {
                    loaded[id.key] = existing
                } else {
                    missing.append(id)
                }
            }
            return missing.isEmpty ? nil : beginRead()
        }
        var records: [Record?] = []
        if !missing.isEmpty {
            do {
                records = try gateway.read(store) { try $0.records(missing) }
            } catch {
                Log.error(error, "Reading related objects failed.")
            }
        }
        return lock.withLock {
            if let ticket {
                for record in records.compactMap({ $0 }) {
                    loaded[record.id.key] = object(for: record, in: store, readSince: ticket)
                }
                endRead(ticket)
            }
            let objects: [CoreStoreObject] = ids.compactMap { id in
                let object = id.isTemporary ? registered(ObjectID(storeID: store.id, recordID: id)) : loaded[id.key]
                guard let object, !object.isDeleted else { return nil }
                return object
            }
            loaded.removeAll()
            finishRegistrations()
            return objects
        }
    }

    /// The objects for records a commit has just merged (call from the commit, after the merge,
    /// while no other commit can merge): the records are current, so nothing is read.
    func objects(forMerged records: [ObjectID: Record]) -> [ObjectID: CoreStoreObject] {
        guard !records.isEmpty else { return [:] }
        return lock.withLock {
            var objects: [ObjectID: CoreStoreObject] = [:]
            for (id, record) in records {
                if let existing = registered(id) {
                    objects[id] = existing
                } else if let store = gateway.store(withID: id.storeID), let made = makeObject(for: record, in: store) {
                    objects[id] = made
                }
            }
            finishRegistrations()
            return objects
        }
    }

    /// The context's object for an identifier, or `nil` if it does not exist (any more) here.
    func object(for id: ObjectID) -> CoreStoreObject? {
        guard let store = gateway.store(withID: id.storeID) else { return nil }
        return objects(for: [id.recordID], in: store).first
    }

    /// Inserts a new object of `entity` into `store`.
    func insert(_ entity: EntityMetadata, into store: AttachedStore) -> CoreStoreObject {
        lock.withLock {
            let recordID = RecordID(entity: entity.name, key: TemporaryKeys.take())
            let object = makeInstance(of: entity, in: store, record: entity.initialRecord(id: recordID), isCommitted: false)
            let id = ObjectID(storeID: store.id, recordID: recordID)
            register(object, as: id)
            inserted.append(object)
            return object
        }
    }

    // MARK: Merging commits (read-only context)

    /// Brings registered objects up to date with a commit. Unregistered records need nothing:
    /// they are read fresh when first fetched (and reads under way learn of it from the log).
    func merge(_ change: StoreCommit) {
        // The objects of deleted records, let go only after the lock: freeing thousands of
        // them (a bulk delete) need not hold up the readers.
        let dropped = lock.withLock {
            mergeLog.record(change)
            // Found by the two numbers: an identifier would copy the entity name per record.
            let storeID = change.store.id
            // In place: iterating would copy each record (its arrays retained and released)
            // whether or not an object is registered for it.
            change.updated.forEachElementAddress { record in
                registeredObjects[storeID: storeID, key: record.pointee.id.key]?.adopt(recordAt: record)
            }
            var dropped: [CoreStoreObject] = []
            for recordID in change.deleted {
                if let object = registeredObjects.removeObject(storeID: storeID, key: recordID.key) {
                    object.markDeletedByCommit()
                    dropped.append(object)
                }
            }
            return dropped
        }
        _ = dropped  // released here, outside the lock
    }

    /// Notes what a refresh found changed or gone in storage, as a merge does (call with the
    /// lock held): a read that began before the refresh and registers after it then takes the
    /// refreshed records, and makes no object for a record the refresh found gone.
    func noteRefreshed(_ change: StoreCommit) {
        mergeLog.record(change)
    }

    // MARK: Rekeying after a commit (transactions)

    func rekey(_ state: ObjectState, from old: ObjectID, to new: ObjectID) {
        if let object = registered(old) {
            dropRegistration(old)
            register(object, as: new)
        }
        state.updateValues { state.recordID = new.recordID }
    }

    /// Forgets every object and pending change while the context stays usable: its stores
    /// were detached (``DataStack/unsafeRemoveAllPersistentStoresAndWait()``).
    func forgetAllObjects() {
        lock.withLock {
            registeredObjects.removeAll()
            sweepThreshold = 1024
            inserted.removeAll()
            changed.removeAll()
            deleted.removeAll()
            recordDeletes.removeAll()
            pendingErrors.removeAll()
            journals.removeAll()
        }
    }

    /// Forgets every object and pending change, for good: the end of a transaction, or of the
    /// stack. Nothing is registered afterwards (an object kept past the end still reads, but
    /// related objects are made anew each time), so objects hold their context without the
    /// context holding them: no cycle outlives the transaction.
    func dropAllObjects() {
        lock.withLock { isFinished = true }
        forgetAllObjects()
    }
}
