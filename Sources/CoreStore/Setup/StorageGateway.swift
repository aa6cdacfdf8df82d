import Foundation
import CoreStoreStorage

/// The one door between the object layer and storage: the model, the attached stores, and the
/// only calls to `StorageInterface.read` and `write` once a store is attached, each failure
/// turned into a ``CoreStoreError`` here.
///
/// A `DataStack` owns one; every context of the stack gets it at init, so a context needs no
/// way back to its stack. It never points at a context or a stack.
final class StorageGateway: @unchecked Sendable {
    /// The model the stack was built with, or why it is invalid.
    let runtimeResult: Result<RuntimeSchema, CoreStoreError>
    /// The model (an empty one when it is invalid; ``entity(for:)`` then throws).
    let runtime: RuntimeSchema
    private let lock = NSLock()
    private var attached: [AttachedStore] = []

    init(runtimeResult: Result<RuntimeSchema, CoreStoreError>, fallbackModelVersion: String) {
        self.runtimeResult = runtimeResult
        self.runtime = (try? runtimeResult.get()) ?? RuntimeSchema(modelVersion: fallbackModelVersion, entities: [])
    }

    // MARK: Stores

    /// The attached stores, in order.
    var stores: [AttachedStore] {
        lock.withLock { attached }
    }

    func store(withID id: UInt64) -> AttachedStore? {
        lock.withLock { attached.first { $0.id == id } }
    }

    func append(_ store: AttachedStore) throws(CoreStoreError) {
        try lock.locked { () throws(CoreStoreError) in
            if attached.contains(where: { $0.storage === store.storage }) {
                throw .storageAlreadyAdded(store: store.storage.storeDescription)
            }
            if attached.contains(where: { $0.configuration == store.configuration }) {
                throw .storageAlreadyAdded(store: "a store for configuration '\(store.configuration ?? "<default>")'")
            }
            attached.append(store)
        }
    }

    /// Detaches every store and returns them, in order.
    func removeAll() -> [AttachedStore] {
        lock.withLock {
            defer { attached.removeAll() }
            return attached
        }
    }

    /// The entity of a class, or an error naming the class.
    func entity(for type: CoreStoreObject.Type) throws(CoreStoreError) -> EntityMetadata {
        let runtime = try runtimeResult.get()
        guard let entity = runtime.entity(for: type) else { throw .unknownEntity(typeName: "\(type)") }
        return entity
    }

    /// The stores that hold `entity`, restricted to `configurations` when given. For inserts,
    /// exactly one store must qualify.
    func stores(holding entity: EntityMetadata, configurations: [String?]?, forInsert: Bool) throws(CoreStoreError) -> [AttachedStore] {
        var candidates = stores.filter { $0.holds(entity.name) }
        if let configurations {
            candidates = candidates.filter { configurations.contains($0.configuration) }
        }
        if candidates.isEmpty {
            throw .persistentStoreNotFound(entity: entity.name, configuration: configurations?.first ?? nil)
        }
        if forInsert && candidates.count > 1 {
            throw .ambiguousStore(entity: entity.name, configurations: candidates.map(\.configuration))
        }
        return candidates
    }

    /// The one store a new object of `entity` goes into: the only store holding it, or the
    /// only one of `configuration` unless `inAnyStore`. Looked for without building lists; when
    /// there is not exactly one, ``stores(holding:configurations:forInsert:)`` throws why.
    func insertionStore(holding entity: EntityMetadata, configuration: String?, inAnyStore: Bool) throws(CoreStoreError) -> AttachedStore {
        var found: AttachedStore?
        for store in stores where (inAnyStore || store.configuration == configuration) && store.holds(entity.name) {
            guard found == nil else { found = nil; break }
            found = store
        }
        if let found { return found }
        let candidates = try stores(holding: entity, configurations: inAnyStore ? nil : [configuration], forInsert: true)
        guard let store = candidates.first else { throw .persistentStoreNotFound(entity: entity.name, configuration: configuration) }
        return store
    }

    /// Where a request goes: the deferred error of a clause (the one place it surfaces), then
    /// the entity, the stores that hold it, and a check of the predicate and sort keys against
    /// every store's schema.
    func target(of spec: CoreStoreFetchRequest) throws(CoreStoreError) -> FetchTarget {
        if let error = spec.error { throw error }
        let entity = try entity(for: spec.entityType)
        let stores = try stores(holding: entity, configurations: spec.configurations, forInsert: false)
        for store in stores {
            try RequestValidator(schema: store.schema).validate(entity: entity.name, predicate: spec.predicate, sorts: spec.sortDescriptors)
        }
        if let predicate = spec.predicate, case let named = StoreTaggedRecords.stores(namedIn: predicate), !named.isEmpty {
            let attached = Set(self.stores.map(\.id))
            if let foreign = named.first(where: { !attached.contains($0) }) {
                throw .invalidObject(message: "a filter of \(entity.name) compares a relationship with an object of store \(foreign), which is not one of this DataStack's stores (an object of another DataStack, or of a store removed since)")
            }
        }
        return FetchTarget(entity: entity, stores: stores)
    }

    // MARK: Reading and writing

    /// Runs `body` on a consistent snapshot of `store` (the one this thread pinned, inside
    /// ``readingOneSnapshot(of:_:)``). A failure of the store, or of `body`, is a
    /// ``CoreStoreError``.
    func read<T>(_ store: AttachedStore, _ body: (any StorageReader) throws -> T) throws(CoreStoreError) -> T {
        do {
            if let pinned = PinnedSnapshots.reader(for: store, of: ObjectIdentifier(self)) { return try body(pinned) }
            return try store.storage.read(body)
        } catch {
            throw CoreStoreError.wrap(error)
        }
    }

    /// Runs `body` with one read transaction open on each of `stores`: every ``read(_:_:)`` of
    /// them that `body` makes on this thread sees the same moment of the store, whatever other
    /// connections commit meanwhile. A stack that reads its objects and then its monitors' lists
    /// again (a full catch-up with a shared store) reads them as of one commit, so that no
    /// observer hears of half of another connection's commit.
    func readingOneSnapshot<T>(of stores: [AttachedStore], _ body: () throws(CoreStoreError) -> T) throws(CoreStoreError) -> T {
        let previous = PinnedSnapshots.current
        let pinned = PinnedSnapshots(gateway: ObjectIdentifier(self))
        PinnedSnapshots.current = pinned
        defer { PinnedSnapshots.current = previous }
        do {
            return try pin(stores[...], in: pinned, body)
        } catch {
            throw CoreStoreError.wrap(error)
        }
    }

    /// Opens a read on the first of `stores`, pins it, and goes on with the rest; then `body`.
    private func pin<T>(_ stores: ArraySlice<AttachedStore>, in pinned: PinnedSnapshots, _ body: () throws(CoreStoreError) -> T) throws -> T {
        guard let store = stores.first else { return try body() }
        return try store.storage.read { reader in
            try pinned.with(reader, for: store.id) { try pin(stores.dropFirst(), in: pinned, body) }
        }
    }

    /// Writes one change set to `store` atomically. Whatever the store reports while writing is
    /// a storage failure (not, say, an invalid fetch, as a storage error means while reading).
    ///
    /// A store short of the contract (which the conformance suite checks) that does not say
    /// what it wrote, or reports fewer inserted records than it inserted, gets what it wrote
    /// taken from the change set and its permanent identifiers, so that the objects and the
    /// monitors still follow the commit.
    func write(_ changes: ChangeSet, to store: AttachedStore) throws(CoreStoreError) -> CommitInfo {
        do {
            var info = try store.storage.write(changes)
            if !info.reportsChanges {
                Log.log(.warning, "\(store.storage.storeDescription) did not say what its commit wrote (CommitInfo.changes); its inserted and updated records are read back, without the records the store changed to keep inverses consistent.")
                info.changes = readBack(changes.changesAsWritten(permanentIDs: info.permanentIDs), from: store)
            } else if info.changes.inserts.count != changes.inserts.count {
                Log.log(.warning, "\(store.storage.storeDescription) reported \(info.changes.inserts.count) inserted records for \(changes.inserts.count) inserts; they are taken from the change set instead (CommitInfo.changes.inserts holds one record per insert, in order).")
                info.changes.inserts = changes.insertsAsWritten(permanentIDs: info.permanentIDs)
            }
            return info
        } catch let error as StorageError {
            throw Log.error(CoreStoreError.storageFailure(error), "Commit to \(store.storage.storeDescription) failed; nothing was written to it.")
        } catch {
            throw Log.error(CoreStoreError.wrap(error), "Commit to \(store.storage.storeDescription) failed; nothing was written to it.")
        }
    }
}

extension StorageGateway {
    /// `written` (taken from a change set) with the inserted and updated records as `store`
    /// holds them now: merged with other commits' changes, as a store that reports its commits
    /// gives them. What cannot be read stays as the change set had it.
    fileprivate func readBack(_ written: MergedChanges, from store: AttachedStore) -> MergedChanges {
        let ids = written.inserts.map(\.id) + written.updates.map(\.new.id)
        guard !ids.isEmpty, let stored = try? store.storage.read({ try $0.records(ids) }), stored.count == ids.count else { return written }
        var merged = written
        for (i, record) in stored.prefix(written.inserts.count).enumerated() {
            if let record { merged.inserts[i] = record }
        }
        for (i, record) in stored.dropFirst(written.inserts.count).enumerated() {
            if let record { merged.updates[i].new = record }
        }
        return merged
    }
}

/// The entity a request is about and the stores that answer it (at least one).
struct FetchTarget {
    let entity: EntityMetadata
    let stores: [AttachedStore]
    /// The schema of the first store: the one requests are checked and sorted with.
    var schema: StoreSchema { stores[0].schema }
}
