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
/// any thread. Change data only inside transactions (``perform(asynchronous:completion:)``,
/// ``perform(synchronous:waitForAllObservers:)``, ``beginUnsafe()``). Transactions run one at
/// a time.
public final class DataStack: @unchecked Sendable, FetchableSource, StorageHosting, CustomDebugStringConvertible {
    /// The model versions the stack knows.
    public let schemaHistory: SchemaHistory

    let runtimeResult: Result<RuntimeSchema, CoreStoreError>
    let mainContext: ObjectContext
    let transactionQueue: DispatchQueue
    private let stateLock = NSLock()
    private var attachedStores: [AttachedStore] = []
    private let commitLock = NSLock()
    private var commitObservers: [ObjectIdentifier: WeakCommitObserver] = [:]
    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()

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
        self.runtimeResult = result
        let runtime = (try? result.get()) ?? RuntimeSchema(modelVersion: schemaHistory.currentModelVersion, entities: [])
        self.transactionQueue = DispatchQueue(label: "CoreStore.DataStack.transactions", qos: .userInitiated)
        self.mainContext = ObjectContext(runtime: runtime, isReadOnly: true)
        self.mainContext.stack = self
        transactionQueue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self))
    }

    /// Closes the stack's stores, so that their files can be opened again by another stack.
    deinit {
        for store in attachedStores {
            store.storage.close()
            StorageClaims.release(store.storage)
        }
    }

    /// The current model version.
    public var modelVersion: String { schemaHistory.currentModelVersion }

    /// The stores added so far, in order.
    public var storages: [any StorageInterface] {
        stateLock.withLock { attachedStores.map(\.storage) }
    }

    func runtime() throws(CoreStoreError) -> RuntimeSchema {
        try runtimeResult.get()
    }

    var stores: [AttachedStore] {
        stateLock.withLock { attachedStores }
    }

    func store(withID id: UInt64) -> AttachedStore? {
        stateLock.withLock { attachedStores.first { $0.id == id } }
    }

    func append(_ store: AttachedStore) throws(CoreStoreError) {
        try stateLock.locked { () throws(CoreStoreError) in
            if attachedStores.contains(where: { $0.storage === store.storage }) {
                throw .storageAlreadyAdded(store: store.storage.storeDescription)
            }
            if attachedStores.contains(where: { $0.configuration == store.configuration }) {
                throw .storageAlreadyAdded(store: "a store for configuration '\(store.configuration ?? "<default>")'")
            }
            attachedStores.append(store)
        }
    }

    /// The entity of a class, or an error naming the class.
    func entity(for type: CoreStoreObject.Type) throws(CoreStoreError) -> EntityMetadata {
        let runtime = try runtime()
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

    /// Whether the caller runs on this stack's transaction queue.
    var isOnTransactionQueue: Bool {
        DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(self)
    }

    // MARK: Commits

    /// Writes a context's pending changes to its stores, merges them into the read-only
    /// context and lets monitors work out what the commit means for them. Serialized across all
    /// transactions of the stack. Returns the deliveries that will tell observers.
    @discardableResult
    func commit(_ context: ObjectContext) throws(CoreStoreError) -> [ObservationDelivery] {
        try commitLock.locked { () throws(CoreStoreError) -> [ObservationDelivery] in
            let prepared = try context.prepareCommit()
            var infos: [CommitInfo] = []
            for part in prepared {
                do {
                    infos.append(try part.store.storage.write(part.changes))
                } catch let error as StorageError {
                    // Whatever the store reports while writing is a storage failure (not, say,
                    // an invalid fetch, as a storage error means while reading).
                    throw Log.error(CoreStoreError.storageFailure(error), "Commit to \(part.store.storage.storeDescription) failed; nothing was written to it.")
                } catch {
                    throw Log.error(CoreStoreError.wrap(error), "Commit to \(part.store.storage.storeDescription) failed; nothing was written to it.")
                }
            }
            let commits = context.finishCommit(prepared, infos: infos)
            for commit in commits { mainContext.merge(commit) }
            // Published last: a transaction that sees this sequence sees everything it wrote.
            for (part, info) in zip(prepared, infos) { part.store.lastSequence = info.sequence }
            guard !commits.isEmpty else { return [] }
            let observers = stateLock.withLock { commitObservers.values.compactMap(\.observer) }
            var deliveries: [ObservationDelivery] = []
            for observer in observers {
                if let delivery = observer.stackDidCommit(commits), !deliveries.contains(where: { $0 === delivery }) {
                    deliveries.append(delivery)
                }
            }
            return deliveries
        }
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

