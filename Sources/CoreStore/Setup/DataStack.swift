import Foundation
import CoreStoreStorage

/// The hub of the framework: the model, the stores that hold its data, a read-only view of
/// committed objects, and the serial queue on which transactions change them.
///
/// ```swift
/// let dataStack = DataStack(
///     CoreStoreSchema(modelVersion: "V1", entities: [Entity<Person>("Person")])
/// )
/// try dataStack.addStorageAndWait(InMemoryStore())
/// try dataStack.perform(synchronous: { transaction in
///     transaction.create(Into<Person>()).name = "Jane"
/// })
/// let people = try dataStack.fetchAll(From<Person>())
/// ```
///
/// Objects fetched from the stack are read-only and always show the latest commit; fetch from
/// any thread. Change data only inside transactions (``perform(asynchronous:sourceIdentifier:completion:)``,
/// ``perform(synchronous:waitForAllObservers:sourceIdentifier:)``, ``beginUnsafe(supportsUndo:sourceIdentifier:)``). Transactions run one at
/// a time.
public final class DataStack: @unchecked Sendable, FetchableSource, StorageHosting, CustomDebugStringConvertible {
    /// The model versions the stack knows.
    public let schemaHistory: SchemaHistory

    /// The model and the attached stores; the only way to storage once a store is attached.
    let gateway: StorageGateway
    let mainContext: ObjectContext
    let transactionQueue: DispatchQueue
    private let stateLock = NSLock()
    private let commitLock = NSLock()
    private var commitObservers: [ObjectIdentifier: WeakCommitObserver] = [:]
    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()
    /// Follows the commits other connections make to shared stores (see `DataStack+SharedStores`).
    let sharedStoreWatcher = SharedStoreWatcher()

    /// A stack for one or more model versions; the last one (or the leaf of `migrationChain`)
    /// is current.
    public convenience init(_ schema: CoreStoreSchema, _ otherSchemas: CoreStoreSchema..., migrationChain: MigrationChain = nil) {
        self.init(schemaHistory: SchemaHistory(allSchema: [schema] + otherSchemas, migrationChain: migrationChain))
    }

    /// A stack with an empty model, for ``CoreStoreDefaults/dataStack`` before one is assigned.
    public convenience init() {
        self.init(CoreStoreSchema(modelVersion: "DefaultModel", entities: [], versionLock: [:]))
    }

    /// A stack for a schema history.
    public init(schemaHistory: SchemaHistory) {
        self.schemaHistory = schemaHistory
        let result: Result<RuntimeSchema, CoreStoreError>
        do {
            if let problem = schemaHistory.validationError { throw CoreStoreError.invalidSchema(message: problem) }
            result = .success(try schemaHistory.currentSchema.runtime())
        } catch {
            let error = CoreStoreError.wrap(error)
            Log.error(error, "The schema of model version '\(schemaHistory.currentModelVersion)' is invalid; adding stores will fail.")
            result = .failure(error)
        }
        self.gateway = StorageGateway(runtimeResult: result, fallbackModelVersion: schemaHistory.currentModelVersion)
        self.transactionQueue = DispatchQueue(label: "CoreStore.DataStack.transactions", qos: .userInitiated)
        self.mainContext = ObjectContext(gateway: gateway, isReadOnly: true)
        transactionQueue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self))
        sharedStoreWatcher.follow(self)
    }

    /// Closes the stack's stores, so that their files can be opened again by another stack.
    deinit {
        // Objects hold their context: dropping the map frees those nobody else holds.
        // No check of the shared stores may read them while they close.
        sharedStoreWatcher.stop()
        SharedStoreRegistry.unregister(self)
        mainContext.dropAllObjects()
        for store in gateway.stores {
            store.storage.close()
            StorageClaims.release(store.storage)
        }
    }

    /// The current model version.
    public var modelVersion: String { schemaHistory.currentModelVersion }

    /// The stores added so far, in order.
    public var storages: [any StorageInterface] {
        gateway.stores.map(\.storage)
    }

    func runtime() throws(CoreStoreError) -> RuntimeSchema {
        try gateway.runtimeResult.get()
    }

    var runtimeResult: Result<RuntimeSchema, CoreStoreError> { gateway.runtimeResult }

    var stores: [AttachedStore] { gateway.stores }

    func store(withID id: UInt64) -> AttachedStore? {
        gateway.store(withID: id)
    }

    func append(_ store: AttachedStore) throws(CoreStoreError) {
        try gateway.append(store)
        try startWatching(store)
    }

    /// The entity of a class, or an error naming the class.
    func entity(for type: CoreStoreObject.Type) throws(CoreStoreError) -> EntityMetadata {
        try gateway.entity(for: type)
    }

    /// The one store a new object of `entity` goes into (see
    /// ``StorageGateway/insertionStore(holding:configuration:inAnyStore:)``).
    func insertionStore(holding entity: EntityMetadata, configuration: String?, inAnyStore: Bool) throws(CoreStoreError) -> AttachedStore {
        try gateway.insertionStore(holding: entity, configuration: configuration, inAnyStore: inAnyStore)
    }

    /// Whether the caller runs on this stack's transaction queue.
    var isOnTransactionQueue: Bool {
        DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(self)
    }

    // MARK: Commits

    /// Writes a context's pending changes to its stores, merges them into the read-only
    /// context and lets monitors work out what the commit means for them. Serialized across all
    /// transactions of the stack. The observers' notifications are scheduled on their delivery
    /// queues (a waiting `perform(synchronous:)` delivers them itself: see
    /// `ObservationDelivery.deliveringOnThisThread`).
    ///
    /// `endsContext`: the context ends right after the commit (a closure transaction), so it
    /// need not keep its objects registered under their permanent identifiers.
    func commit(_ context: ObjectContext, endsContext: Bool = false) throws(CoreStoreError) {
        try sharedStoreWatcher.duringOwnCommit { () throws(CoreStoreError) in try commitLocked(context, endsContext: endsContext) }
    }

    private func commitLocked(_ context: ObjectContext, endsContext: Bool) throws(CoreStoreError) {
        try commitLock.locked { () throws(CoreStoreError) in
            // Observers are added under the commit lock too: none can appear until the commit
            // has told the ones there are. Without any, no deleted record's values are needed.
            let observed = stateLock.withLock { commitObservers.values.contains { $0.observer != nil } }
            let prepared = try context.prepareCommit(returnsDeletedRecords: observed)
            // One write per store, in order. Stores cannot commit together: when one fails after
            // others have saved, what they saved is kept and followed like any commit (merged,
            // observed, no longer pending), and the error says which stores hold it.
            var infos: [CommitInfo] = []
            var failure: CoreStoreError?
            for part in prepared {
                do throws(CoreStoreError) {
                    infos.append(try gateway.write(part.changes, to: part.store))
                } catch {
                    failure = error
                    break
                }
            }
            if let failure, infos.isEmpty { throw failure }
            let saved = Array(prepared.prefix(infos.count))
            let unsaved = prepared.dropFirst(infos.count).map(\.store)
            let commits = context.finishCommit(saved, infos: infos, endsContext: endsContext, othersFailed: failure != nil)
            for commit in commits { mainContext.merge(commit) }
            // Published last: a transaction that sees this sequence sees everything it wrote.
            var othersCommitted = false
            for (part, info) in zip(saved, infos) {
                // A gap in a shared store's sequence: another connection committed since the
                // last commit this stack knows of. The sequence stays behind, so that the
                // check below notices it.
                if part.store.storage is any SharedAccessStorage, let last = part.store.lastSequence, info.sequence != last + 1 {
                    othersCommitted = true
                    part.store.ownCommitsAhead.insert(info.sequence)
                } else {
                    part.store.lastSequence = info.sequence
                    sharedStoreWatcher.noteOwnCommit(to: part.store)
                }
            }
            notifyStacksSharing(commits)
            if !commits.isEmpty { _ = tellObservers { $0.stackDidCommit(commits) } }
            if othersCommitted {
                // Caught up now, under the lock this commit holds: a stack that commits without
                // pause would otherwise keep its watcher waiting for the lock.
                do {
                    _ = try catchUpWithSharedStores()
                } catch {
                    // The commit itself is stored; the watcher tries again.
                    _ = Log.error(CoreStoreError.wrap(error), "Catching up with other connections' commits after a commit failed; the next check tries again.")
                    sharedStoreWatcher.requestCheck()
                }
            }
            if let failure, let failed = unsaved.first {
                throw .partialCommit(committedConfigurations: saved.map(\.store.configuration), failedConfiguration: failed.configuration, error: failure)
            }
        }
    }

    /// Lets every commit observer work out what happened; returns the distinct deliveries that
    /// will tell their observers. Call with the commit lock held.
    private func tellObservers(_ examine: (any CommitObserver) -> ObservationDelivery?) -> [ObservationDelivery] {
        let observers = stateLock.withLock { commitObservers.values.compactMap(\.observer) }
        var deliveries: [ObservationDelivery] = []
        for observer in observers {
            if let delivery = examine(observer), !deliveries.contains(where: { $0 === delivery }) {
                deliveries.append(delivery)
            }
        }
        return deliveries
    }

    /// Reads the read-only context's objects from storage again (under the commit lock, so no
    /// commit of this stack interleaves) and lets monitors re-examine what they show. Returns
    /// the deliveries that will tell observers.
    func refreshMainContext() throws(CoreStoreError) -> [ObservationDelivery] {
        try commitLock.locked(refreshObjectsAndMonitors)
    }

    /// What ``refreshMainContext()`` does; call with the commit lock held.
    func refreshObjectsAndMonitors() throws(CoreStoreError) -> [ObservationDelivery] {
        let commits = try mainContext.refreshAllObjects()
        return tellObservers { $0.stackDidRefresh(commits) }
    }

    /// Merges commits that other connections made (caught up from their summaries) into the
    /// read-only context one by one, and lets monitors work out what each means, as for the
    /// stack's own;
    /// call with the commit lock held. Returns the deliveries that will tell observers.
    func mergeForeignCommits(_ commits: [StoreCommit]) -> [ObservationDelivery] {
        var deliveries: [ObservationDelivery] = []
        for commit in commits {
            mainContext.merge(commit)
            for delivery in tellObservers({ $0.stackDidCommit([commit]) }) where !deliveries.contains(where: { $0 === delivery }) {
                deliveries.append(delivery)
            }
        }
        return deliveries
    }

    /// Registers a monitor for every commit and runs `start` while no commit can happen, so
    /// that what `start` reads and the first commit the monitor sees fit together.
    func addCommitObserver<T>(_ observer: any CommitObserver, start: () throws(CoreStoreError) -> T) throws(CoreStoreError) -> T {
        try commitLock.locked { () throws(CoreStoreError) -> T in
            let value = try start()
            stateLock.withLock {
                commitObservers = commitObservers.filter { $0.value.observer != nil }
                commitObservers[ObjectIdentifier(observer)] = WeakCommitObserver(observer)
            }
            return value
        }
    }

    /// Runs `body` while no commit can happen (a monitor's refetch).
    func withCommitsPaused<T>(_ body: () throws(CoreStoreError) -> T) throws(CoreStoreError) -> T {
        try commitLock.locked(body)
    }

    /// Forgets a monitor (called from its `deinit`).
    func removeCommitObserver(_ identifier: ObjectIdentifier) {
        stateLock.withLock { commitObservers[identifier] = nil }
    }

    // MARK: FetchableSource

    /// The read-only context.
    public func cs_fetchContext() throws -> FetchContext {
        FetchContext(context: mainContext)
    }

    /// The model version, its entities and the stores.
    public var debugDescription: String {
        var lines = ["DataStack(modelVersion: \"\(modelVersion)\")"]
        if case .failure(let error) = runtimeResult { lines.append("  invalid schema: \(error)") }
        for entity in mainContext.runtime.entities {
            lines.append("  entity \(entity.name)\(entity.description.isAbstract ? " (abstract)" : "") → \(entity.type)")
        }
        for store in stores {
            lines.append("  store \(store.storage.storeDescription) [configuration: \(store.configuration ?? "<default>")]")
        }
        return lines.joined(separator: "\n")
    }
}

