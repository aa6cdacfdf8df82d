import Foundation
import CoreStoreStorage

/// The outcome of adding a store.
public typealias SetupResult<T> = Result<T, CoreStoreError>

extension DataStack {
    /// Opens `storage` with the current model and adds it, blocking until done.
    ///
    /// A store of an earlier model version is migrated only when every step is lightweight and
    /// its options contain `.allowSynchronousLightweightMigration`; otherwise this throws
    /// ``CoreStoreError/asynchronousMigrationRequired(localStoreURL:NSError:)`` (use
    /// `addStorage(_:completion:)-(UpgradableStorage,_)`). Also throws if the schema is invalid, the store is
    /// already added (to this or another stack), a store of the same configuration exists, the
    /// store fails to open, or it holds a model this stack does not declare (left untouched).
    @discardableResult
    public func addStorageAndWait<T: StorageInterface>(_ storage: T) throws -> T {
        do {
            switch try prepareAddition(storage, synchronous: true) {
            case .added:
                return storage
            case .migrationNeeded(let plan):
                try finishAddition(storage, plan: plan, progress: nil, report: {})
                return storage
            }
        } catch {
            throw Log.error(CoreStoreError.wrap(error), "Failed to add \(storage.storeDescription) to the DataStack.")
        }
    }

    /// Adds `storage` on a background queue and calls `completion` on the main queue.
    public func addStorage<T: StorageInterface>(_ storage: T, completion: @escaping @MainActor (SetupResult<T>) -> Void) {
        let storage = UncheckedBox(storage)
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            let result: SetupResult<T>
            do {
                result = .success(try addStorageAndWait(storage.value))
            } catch {
                result = .failure(CoreStoreError.wrap(error))
            }
            Self.deliver(result, to: completion)
        }
    }

    static func deliver<R>(_ result: R, to completion: @escaping @MainActor (R) -> Void) {
        let box = UncheckedBox(result)
        DispatchQueue.main.async { MainActor.assumeIsolated { completion(box.value) } }
    }

    /// What adding a store still needs once it is claimed and its metadata read.
    enum Addition {
        /// The store is open and added.
        case added
        /// The store is closed and claimed; `plan` migrates it to the current version.
        case migrationNeeded(MigrationPlan)
    }

    /// Claims and opens `storage`. A store at the current version (or a new one) is added; a
    /// store of an earlier version is planned for migration (or erased with
    /// `.recreateStoreOnModelMismatch` when it cannot be migrated). With `synchronous`, only
    /// lightweight plans allowed by `.allowSynchronousLightweightMigration` are returned.
    func prepareAddition<T: StorageInterface>(_ storage: T, synchronous: Bool) throws -> Addition {
        let runtime = try runtime()
        let schema = runtime.storeSchema(configuration: storage.configuration)
        if let configuration = storage.configuration, schema.entities.isEmpty {
            throw CoreStoreError.persistentStoreNotFound(entity: "<any>", configuration: configuration)
        }
        try StorageClaims.claim(storage)
        do {
            let stored = try storage.open(schema: schema)
            guard let stored, stored.schemaHash != schema.schemaHash else {
                try recordSchema(schema, versionLock: runtime.versionLock, in: storage, stored: stored)
                try append(AttachedStore(storage: storage, schema: schema))
                Log.log(.notice, "Added \(storage.storeDescription) (model version '\(schema.modelVersion)') to the DataStack.")
                return .added
            }
            storage.close()
            try StorageClaims.requireSoleClaim(storage, toDo: "migrating or erasing it")
            let options = (storage as? any UpgradableStorage)?.localStorageOptions ?? .none
            do {
                let plan = try migrationPlan(for: storage, stored: stored, target: schema)
                if synchronous && !(options.contains(.allowSynchronousLightweightMigration) && plan.isLightweight) {
                    throw CoreStoreError.asynchronousMigrationRequired(localStoreURL: plan.url, NSError: NSError(
                        domain: CoreStoreErrorDomain, code: 1,
                        userInfo: [NSLocalizedDescriptionKey: "it needs \(plan.steps.map { "\($0.migrationType)" }.joined(separator: ", "))"]
                    ))
                }
                return .migrationNeeded(plan)
            } catch {
                guard options.contains(.recreateStoreOnModelMismatch) else { throw error }
                Log.log(.warning, "\(storage.storeDescription) holds model '\(stored.modelVersion)' (hash \(stored.schemaHash)) and cannot be migrated (\(error)); erasing it because of .recreateStoreOnModelMismatch.")
                try storage.erase()
                let created = try storage.open(schema: schema)
                try recordSchema(schema, versionLock: runtime.versionLock, in: storage, stored: created)
                try append(AttachedStore(storage: storage, schema: schema))
                return .added
            }
        } catch {
            storage.close()
            StorageClaims.release(storage)
            throw error
        }
    }

    /// Runs `plan` on the claimed, closed `storage`, then opens and adds it. With
    /// `.recreateStoreOnModelMismatch`, a failing migration erases the store instead.
    func finishAddition<T: StorageInterface>(_ storage: T, plan: MigrationPlan, progress: Progress?, report: () -> Void) throws {
        let schema = plan.target
        do {
            do {
                try plan.run(progress: progress, report: report)
            } catch {
                guard let upgradable = storage as? any UpgradableStorage, upgradable.localStorageOptions.contains(.recreateStoreOnModelMismatch) else { throw error }
                Log.log(.warning, "Migrating \(storage.storeDescription) failed (\(error)); erasing it because of .recreateStoreOnModelMismatch.")
                try storage.erase()
            }
            let stored = try storage.open(schema: schema)
            if let stored, stored.schemaHash != schema.schemaHash {
                throw CoreStoreError.schemaMismatch(
                    store: storage.storeDescription, storedVersion: stored.modelVersion, storedHash: stored.schemaHash,
                    expectedVersion: schema.modelVersion, expectedHash: schema.schemaHash
                )
            }
            try recordSchema(schema, versionLock: try runtime().versionLock, in: storage, stored: stored)
            try append(AttachedStore(storage: storage, schema: schema))
            Log.log(.notice, "Added \(storage.storeDescription) (model version '\(schema.modelVersion)') to the DataStack after migrating it.")
        } catch {
            storage.close()
            StorageClaims.release(storage)
            throw error
        }
    }
}

extension DataStack {
    /// Writes `schema` and the model's version lock into the metadata of the open `storage`
    /// (see ``StoredMetadata/schemaKey``) when `stored`, what opening it returned, does not
    /// already hold exactly these: so a tool can read the store without the model. `nil` is a
    /// store just created.
    func recordSchema(_ schema: StoreSchema, versionLock: VersionLock, in storage: any StorageInterface, stored: StoredMetadata?) throws {
        var metadata = stored ?? StoredMetadata(modelVersion: schema.modelVersion, schemaHash: schema.schemaHash)
        let previous = metadata
        metadata.recordSchema(schema)
        metadata.userInfo[StoredMetadata.versionLockKey] = versionLock.description
        guard metadata != previous else { return }
        _ = try storage.write(ChangeSet(metadata: metadata))
    }
}

/// Stores in use by a stack in this process; a store instance can only be added once, and a
/// file only once unless every store on it is `SharedAccessStorage`.
enum StorageClaims {
    private static let lock = NSLockWrapper()
    nonisolated(unsafe) private static var claimed: [ObjectIdentifier: WeakStorage] = [:]

    private final class WeakStorage {
        weak var storage: (any StorageInterface)?
        init(_ storage: any StorageInterface) { self.storage = storage }
    }

    /// Local stores are also claimed by file, so that two instances for one file cannot both
    /// be written by this process — unless both share access to it.
    nonisolated(unsafe) private static var claimedPaths: [String: [WeakStorage]] = [:]

    static func claim(_ storage: any StorageInterface) throws(CoreStoreError) {
        let path = (storage as? any LocalStorage)?.canonicalPath
        let shares = storage is any SharedAccessStorage
        let ok = lock.run { () -> Bool in
            let key = ObjectIdentifier(storage)
            if let existing = claimed[key], existing.storage != nil { return false }
            if let path {
                let holders = (claimedPaths[path] ?? []).filter { $0.storage != nil }
                if !holders.isEmpty && !(shares && holders.allSatisfy { $0.storage is any SharedAccessStorage }) { return false }
                claimedPaths[path] = holders + [WeakStorage(storage)]
            }
            claimed[key] = WeakStorage(storage)
            return true
        }
        if !ok { throw .storageAlreadyAdded(store: storage.storeDescription) }
    }

    /// How long a migration or an erase waits for another store instance on its file to go
    /// away before it refuses. A stack let go releases its stores when its last reference
    /// does, which can be another thread's a moment later (a delivery finishing, a registry
    /// that briefly held every stack while it pruned them).
    static let releaseGracePeriod: TimeInterval = 1

    /// Throws when another store instance of this process holds the same file (still, after
    /// ``releaseGracePeriod``): what a migration or an erase would change under it.
    static func requireSoleClaim(_ storage: any StorageInterface, toDo action: String) throws(CoreStoreError) {
        guard let path = (storage as? any LocalStorage)?.canonicalPath else { return }
        let deadline = Date(timeIntervalSinceNow: releaseGracePeriod)
        while lock.run({ (claimedPaths[path] ?? []).contains { $0.storage != nil && $0.storage !== storage } }) {
            guard Date() < deadline else {
                throw .storageFailure(.invalidRequest("\(storage.storeDescription) is open in another DataStack of this process; \(action) needs the file to itself: let that stack go (or remove its stores) first"))
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
    }

    static func release(_ storage: any StorageInterface) {
        let path = (storage as? any LocalStorage)?.canonicalPath
        lock.run {
            claimed[ObjectIdentifier(storage)] = nil
            if let path {
                let remaining = (claimedPaths[path] ?? []).filter { $0.storage != nil && $0.storage !== storage }
                claimedPaths[path] = remaining.isEmpty ? nil : remaining
            }
        }
    }
}
