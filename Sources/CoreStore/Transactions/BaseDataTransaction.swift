import CoreStoreStorage

/// What every transaction can do: create, edit, delete and fetch objects in its own context.
///
/// Objects returned by a transaction belong to it; use them only inside the transaction and pass
/// ``ObjectID``s or `fetchExisting(_:)` to move them elsewhere. Misuse that cannot throw where it
/// happens (an entity without a store in `create`, an object of another context assigned to a
/// relationship) is logged as an assertion and makes the commit fail with that error.
public class BaseDataTransaction: FetchableSource {
    /// The stack this transaction changes.
    public let dataStack: DataStack
    let context: ObjectContext
    /// Where `create` puts each class (per configuration asked for), found once per transaction.
    /// A transaction creates objects of a few classes: a list searched from the one used last
    /// (a loop creating objects of one class finds it first) costs less than a table to build.
    /// Guarded by the context's lock, which every access holds (so without the run-time
    /// exclusivity check a class property otherwise pays on every `create`).
    @exclusivity(unchecked) private var insertionTargets: [(key: InsertionKey, target: (EntityMetadata, AttachedStore))] = []

    /// What the caller passed as `sourceIdentifier` when it began the transaction; the
    /// observers of its commit receive it (`listMonitorDidChange(_:sourceIdentifier:)`, …).
    public let sourceIdentifier: Any?

    init(dataStack: DataStack, sourceIdentifier: Any? = nil) {
        self.dataStack = dataStack
        self.sourceIdentifier = sourceIdentifier
        self.context = ObjectContext(gateway: dataStack.gateway, isReadOnly: false)
        self.context.sourceIdentifier = SourceIdentifierBox(value: sourceIdentifier)
        // Where each store stood when the transaction began: if a store commits nothing else
        // until this transaction commits, what the transaction read is what is stored.
        for store in dataStack.stores {
            if let sequence = store.lastSequence { context.baseSequences[store.id] = sequence }
        }
    }

    /// The transaction's context.
    public func cs_fetchContext() throws -> FetchContext {
        FetchContext(context: context)
    }

    // MARK: Creating

    /// Inserts a new object of `O` with every field at its initial value.
    ///
    /// The entity must live in exactly one store, or `into` must name its configuration. If not,
    /// the error is logged, the returned object is detached (its changes are ignored) and the
    /// commit fails with that error.
    public func create<O>(_ into: Into<O>) -> O {
        do {
            return try insertObject(into)
        } catch {
            context.report(error)
            return O(asMeta: ())
        }
    }

    /// The store a new object of `O` goes into: the only one holding the entity, or the one of
    /// `into`'s configuration.
    func insertionStore<O>(_ into: Into<O>) throws(CoreStoreError) -> (EntityMetadata, AttachedStore) {
        let key = InsertionKey(type: ObjectIdentifier(O.self), inAnyStore: into.inAnyStore, configuration: into.configuration)
        context.lock.lock()
        if let last = insertionTargets.last, last.key == key {
            context.lock.unlock()
            return last.target
        }
        if let index = insertionTargets.firstIndex(where: { $0.key == key }) {
            let entry = insertionTargets.remove(at: index)
            insertionTargets.append(entry)
            context.lock.unlock()
            return entry.target
        }
        context.lock.unlock()
        let target = try findInsertionStore(into)
        context.lock.locked { insertionTargets.append((key, target)) }
        return target
    }

    private func findInsertionStore<O>(_ into: Into<O>) throws(CoreStoreError) -> (EntityMetadata, AttachedStore) {
        let entity = try dataStack.entity(for: O.self)
        if entity.description.isAbstract {
            throw CoreStoreError.invalidObject(message: "'\(entity.name)' is abstract; create one of its sub-entities instead")
        }
        return (entity, try dataStack.insertionStore(holding: entity, configuration: into.configuration, inAnyStore: into.inAnyStore))
    }

    /// Inserts a new object of `O`, or throws why it cannot (``create(_:)`` reports instead).
    func insertObject<O>(_ into: Into<O>) throws(CoreStoreError) -> O {
        let (entity, store) = try insertionStore(into)
        return try insertObject(O.self, entity: entity, into: store)
    }

    /// Inserts a new object of `entity` into `store`, both already resolved by
    /// ``insertionStore(_:)`` (importers resolve once per call, not once per object).
    func insertObject<O>(_ type: O.Type, entity: EntityMetadata, into store: AttachedStore) throws(CoreStoreError) -> O {
        guard context.isActive else { throw CoreStoreError.transactionMisuse(message: "create(_:) was called after the transaction ended") }
        let object = context.insert(entity, into: store)
        // The entity's own class is the usual case, recognized without a dynamic cast.
        if ObjectIdentifier(Swift.type(of: object)) == ObjectIdentifier(O.self) { return unsafeBitCast(object, to: O.self) }
        return try Self.cast(object, to: O.self)
    }

    /// `object` as an `O`, a class it does not belong to exactly. Out of line: the cast needs
    /// the metadata of `O?`, which unspecialized code looks up at run time — in the caller,
    /// on every insert, even when the cast is not reached.
    @inline(never)
    private static func cast<O>(_ object: CoreStoreObject, to type: O.Type) throws(CoreStoreError) -> O {
        if let object = object as? O { return object }
        throw CoreStoreError.unknownEntity(typeName: "\(O.self)")
    }

    // MARK: Editing

    /// This transaction's editable instance of `object`, or `nil` if the object does not exist
    /// here (deleted, from another stack, or `nil`).
    public func edit<O: CoreStoreObject>(_ object: O?) -> O? {
        guard let object else { return nil }
        guard let result = fetchExisting(object) else {
            Log.assert(false, "edit(_:) was given an object that does not exist in this transaction's DataStack")
            return nil
        }
        return result
    }

    /// This transaction's editable instance of the object with `objectID`, or `nil`.
    public func edit<O: CoreStoreObject>(_ into: Into<O>, _ objectID: ObjectID) -> O? {
        fetchExisting(objectID)
    }

    // MARK: Deleting

    /// Deletes `object` (any context's instance of it). Deleting a deleted or unknown object does
    /// nothing. Returns the number of objects newly deleted (0 or 1).
    @discardableResult
    public func delete<O: CoreStoreObject>(_ object: O?) -> Int {
        guard let object, let local = fetchExisting(object), let state = local.cs_state else { return 0 }
        return context.delete(state) ? 1 : 0
    }

    /// Deletes several objects; returns how many were newly deleted.
    @discardableResult
    public func delete<O: CoreStoreObject>(_ object: O?, _ object2: O?, _ otherObjects: O?...) -> Int {
        delete(([object, object2] + otherObjects).compactMap { $0 })
    }

    /// Deletes a sequence of objects; returns how many were newly deleted.
    @discardableResult
    public func delete<S: Sequence>(_ objects: S) -> Int where S.Element: CoreStoreObject {
        objects.reduce(0) { $0 + delete($1) }
    }

    /// Deletes every object matching the clauses; returns how many were deleted.
    @discardableResult
    public func deleteAll<O>(_ from: From<O>, _ deleteClauses: FetchClause...) throws -> Int {
        try context.deleteMatching(from.specification(deleteClauses))
    }

    /// Deletes every object matching a clause chain; returns how many were deleted.
    @discardableResult
    public func deleteAll<O>(_ clauseChain: FetchChainBuilder<O>) throws -> Int {
        try context.deleteMatching(clauseChain.specification())
    }

    // MARK: Inspecting

    /// Whether the transaction has uncommitted inserts, updates or deletes.
    public var hasChanges: Bool { context.hasChanges }

    /// Objects inserted and not yet committed.
    public func insertedObjects() -> Set<CoreStoreObject> {
        context.lock.withLock { Set(context.inserted.filter { !$0.isDeleted }) }
    }

    /// Objects of `O` (and sub-entities) inserted and not yet committed.
    public func insertedObjects<O: CoreStoreObject>(_ entity: O.Type) -> Set<O> {
        Set(insertedObjects().compactMap { $0 as? O })
    }

    /// Objects changed and not yet committed (inserted ones excluded).
    public func updatedObjects() -> Set<CoreStoreObject> {
        context.lock.withLock { Set(context.changed.objects) }
    }

    /// Objects of `O` changed and not yet committed.
    public func updatedObjects<O: CoreStoreObject>(_ entity: O.Type) -> Set<O> {
        Set(updatedObjects().compactMap { $0 as? O })
    }

    /// Objects deleted and not yet committed.
    public func deletedObjects() -> Set<CoreStoreObject> {
        context.makeObjectsForRecordDeletes()
        return context.lock.withLock { Set(context.deleted.values) }
    }

    /// Objects of `O` deleted and not yet committed.
    public func deletedObjects<O: CoreStoreObject>(_ entity: O.Type) -> Set<O> {
        Set(deletedObjects().compactMap { $0 as? O })
    }

    /// Identifiers of inserted objects (temporary until the commit).
    public func insertedObjectIDs() -> Set<ObjectID> {
        Set(insertedObjects().compactMap { $0.cs_id() })
    }

    /// Identifiers of inserted objects of `O`.
    public func insertedObjectIDs<O: CoreStoreObject>(_ entity: O.Type) -> Set<ObjectID> {
        Set(insertedObjects(entity).compactMap { $0.cs_id() })
    }

    /// Identifiers of updated objects.
    public func updatedObjectIDs() -> Set<ObjectID> {
        Set(updatedObjects().compactMap { $0.cs_id() })
    }

    /// Identifiers of updated objects of `O`.
    public func updatedObjectIDs<O: CoreStoreObject>(_ entity: O.Type) -> Set<ObjectID> {
        Set(updatedObjects(entity).compactMap { $0.cs_id() })
    }

    /// Identifiers of deleted objects.
    public func deletedObjectIDs() -> Set<ObjectID> {
        Set(deletedObjects().compactMap { $0.cs_id() })
    }

    /// Identifiers of deleted objects of `O`.
    public func deletedObjectIDs<O: CoreStoreObject>(_ entity: O.Type) -> Set<ObjectID> {
        Set(deletedObjects(entity).compactMap { $0.cs_id() })
    }
}

/// A class and the configuration `create(_:)` was asked to insert it into.
private struct InsertionKey: Hashable {
    let type: ObjectIdentifier
    let inAnyStore: Bool
    let configuration: String?
}
