import Foundation
import CoreStoreStorage

/// The outcome of adding a store.
public typealias SetupResult<T> = Result<T, CoreStoreError>

extension DataStack {
    /// Opens `storage` with the current model and adds it, blocking until done.
    ///
    /// Throws if the schema is invalid, the store is already added (to this or another stack),
    /// a store of the same configuration exists, the store fails to open, or it holds data of
    /// another model (which is left untouched).
    @discardableResult
    public func addStorageAndWait<T: StorageInterface>(_ storage: T) throws -> T {
        do {
            let runtime = try runtime()
            let schema = runtime.storeSchema(configuration: storage.configuration)
            if let configuration = storage.configuration, schema.entities.isEmpty {
                throw CoreStoreError.persistentStoreNotFound(entity: "<any>", configuration: configuration)
            }
            try StorageClaims.claim(storage)
            var metadata: StoredMetadata?
            do {
                metadata = try storage.open(schema: schema)
            } catch {
                StorageClaims.release(storage)
                throw error
            }
            if let stored = metadata, stored.schemaHash != schema.schemaHash,
               let local = storage as? any LocalStorage, local.localStorageOptions.contains(.recreateStoreOnModelMismatch) {
                Log.log(.warning, "\(storage.storeDescription) holds model '\(stored.modelVersion)' (hash \(stored.schemaHash)); erasing it because of .recreateStoreOnModelMismatch.")
                do {
                    try storage.erase()
                    metadata = try storage.open(schema: schema)
                } catch {
                    storage.close()
                    StorageClaims.release(storage)
                    throw error
                }
            }
            if let metadata, metadata.schemaHash != schema.schemaHash {
                storage.close()
                StorageClaims.release(storage)
                throw CoreStoreError.schemaMismatch(
                    store: storage.storeDescription, storedVersion: metadata.modelVersion, storedHash: metadata.schemaHash,
                    expectedVersion: schema.modelVersion, expectedHash: schema.schemaHash
                )
            }
            do {
                try append(AttachedStore(storage: storage, schema: schema))
            } catch {
                storage.close()
                StorageClaims.release(storage)
                throw error
            }
            Log.log(.notice, "Added \(storage.storeDescription) (model version '\(schema.modelVersion)') to the DataStack.")
            return storage
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
            let resultBox = UncheckedBox(result)
            DispatchQueue.main.async { MainActor.assumeIsolated { completion(resultBox.value) } }
        }
    }
}

/// Stores in use by a stack in this process; a store instance can only be added once.
enum StorageClaims {
    private static let lock = NSLockWrapper()
    nonisolated(unsafe) private static var claimed: [ObjectIdentifier: WeakStorage] = [:]

    private final class WeakStorage {
        weak var storage: (any StorageInterface)?
        init(_ storage: any StorageInterface) { self.storage = storage }
    }

    /// Local stores are also claimed by file, so that two instances for one file cannot both
    /// be written by this process.
    nonisolated(unsafe) private static var claimedPaths: [String: WeakStorage] = [:]

    static func claim(_ storage: any StorageInterface) throws(CoreStoreError) {
        let path = (storage as? any LocalStorage)?.canonicalPath
        let ok = lock.run { () -> Bool in
            let key = ObjectIdentifier(storage)
            if let existing = claimed[key], existing.storage != nil { return false }
            if let path, let existing = claimedPaths[path], existing.storage != nil { return false }
            claimed[key] = WeakStorage(storage)
            if let path { claimedPaths[path] = WeakStorage(storage) }
            return true
        }
        if !ok { throw .storageAlreadyAdded(store: storage.storeDescription) }
    }

    static func release(_ storage: any StorageInterface) {
        let path = (storage as? any LocalStorage)?.canonicalPath
        lock.run {
            claimed[ObjectIdentifier(storage)] = nil
            if let path, claimedPaths[path]?.storage === storage { claimedPaths[path] = nil }
        }
    }
}
