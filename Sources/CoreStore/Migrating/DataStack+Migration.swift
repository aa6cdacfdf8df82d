import Foundation
import CoreStoreStorage

extension DataStack {
    /// Adds a store (a local one, or a server's such as `PostgresStore`) on a background queue,
    /// migrating it first when it holds an earlier model version, and calls `completion` on the main queue.
    ///
    /// Returns `nil` when no migration is needed, otherwise a `Progress` with one unit per step
    /// (observe `fractionCompleted`). Errors — also those found before anything starts, such as a
    /// version that is not in the migration chain — reach `completion`.
    @discardableResult
    public func addStorage<T: UpgradableStorage>(_ storage: T, completion: @escaping @MainActor (SetupResult<T>) -> Void) -> Progress? {
        let addition: Addition
        do {
            addition = try prepareAddition(storage, synchronous: false)
        } catch {
            Self.deliver(.failure(Log.error(CoreStoreError.wrap(error), "Failed to add \(storage.storeDescription) to the DataStack.")), to: completion)
            return nil
        }
        guard case .migrationNeeded(let plan) = addition else {
            Self.deliver(.success(storage), to: completion)
            return nil
        }
        let progress = Progress(totalUnitCount: Int64(plan.steps.count))
        let box = UncheckedBox(storage)
        let handle = AdditionHandle(self)
        DispatchQueue.global(qos: .userInitiated).async {
            let result = handle.run(otherwise: .failure(Self.additionEnded)) { stack -> SetupResult<T> in
                do {
                    try stack.finishAddition(box.value, plan: plan, progress: progress, report: {})
                    return .success(box.value)
                } catch {
                    return .failure(Log.error(CoreStoreError.wrap(error), "Failed to add \(box.value.storeDescription) to the DataStack."))
                }
            }
            Self.deliver(result, to: completion)
        }
        return progress
    }

    /// The error of an addition whose stack was already let go (never expected).
    static let additionEnded = CoreStoreError.unknown(message: "The store's addition already ended; its DataStack was let go.")

    /// Migrates a store to the current model version without adding it; `completion`
    /// (on the main queue) receives the steps run, empty when none was needed.
    ///
    /// Throws at once what is found before anything starts (the store is added elsewhere, its
    /// version cannot be migrated); returns `nil` when no migration is needed.
    @discardableResult
    public func upgradeStorageIfNeeded<T: UpgradableStorage>(_ storage: T, completion: @escaping @MainActor (MigrationResult) -> Void) throws(CoreStoreError) -> Progress? {
        guard let plan = try inspectForMigration(storage) else {
            Self.deliver(MigrationResult.success([]), to: completion)
            return nil
        }
        let progress = Progress(totalUnitCount: Int64(plan.steps.count))
        let box = UncheckedBox(storage)
        DispatchQueue.global(qos: .userInitiated).async {
            let result: MigrationResult
            do throws(CoreStoreError) {
                try plan.run(progress: progress, report: {})
                result = .success(plan.migrationTypes)
            } catch {
                result = .failure(error)
            }
            StorageClaims.release(box.value)
            Self.deliver(result, to: completion)
        }
        return progress
    }

    /// The migration steps adding `storage` would run, without changing it: empty when the store
    /// does not exist or is at the current version. Throws what adding it would throw before
    /// migrating (a version outside the migration chain, a step that cannot be mapped, …).
    public func requiredMigrationsForStorage<T: UpgradableStorage>(_ storage: T) throws(CoreStoreError) -> [MigrationType] {
        guard let plan = try inspectForMigration(storage) else { return [] }
        StorageClaims.release(storage)
        return plan.migrationTypes
    }

    /// Reads the metadata of a store and plans its migration; `nil` (and nothing held)
    /// when none is needed, otherwise the plan with the store claimed and closed.
    private func inspectForMigration<T: UpgradableStorage>(_ storage: T) throws(CoreStoreError) -> MigrationPlan? {
        let exists: Bool
        do {
            exists = try storage.storeExists()
        } catch {
            throw CoreStoreError.wrap(error)
        }
        guard exists else { return nil }
        let schema = try runtime().storeSchema(configuration: storage.configuration)
        try StorageClaims.claim(storage)
        do throws(CoreStoreError) {
            let stored: StoredMetadata?
            do {
                stored = try storage.open(schema: schema)
            } catch {
                throw CoreStoreError.wrap(error)
            }
            storage.close()
            guard let stored, stored.schemaHash != schema.schemaHash else {
                StorageClaims.release(storage)
                return nil
            }
            try StorageClaims.requireSoleClaim(storage, toDo: "migrating it")
            return try migrationPlan(for: storage, stored: stored, target: schema)
        } catch {
            storage.close()
            StorageClaims.release(storage)
            throw error
        }
    }
}

extension DataStack.AsyncNamespace {
    /// Adds a store, migrating it first when needed, and reports the progress:
    /// `.migrating` while a migration runs, then `.finished` once the store is added.
    ///
    /// ```swift
    /// for try await progress in dataStack.async.addStorage(SQLiteStore(fileName: "App.sqlite")) {
    ///     print(progress.fractionCompleted)
    /// }
    /// ```
    public func addStorage<T: UpgradableStorage>(_ storage: T) -> AsyncThrowingStream<MigrationProgress<T>, any Error> {
        let handle = AdditionHandle(dataStack)
        let box = UncheckedBox(storage)
        return AsyncThrowingStream { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                // The stack is let go before `.finished` is yielded (see `AdditionHandle`).
                let outcome = handle.run(otherwise: .failure(DataStack.additionEnded)) { stack -> Result<Bool, any Error> in
                    do {
                        switch try stack.prepareAddition(box.value, synchronous: false) {
                        case .added:
                            return .success(false)
                        case .migrationNeeded(let plan):
                            let progress = Progress(totalUnitCount: Int64(plan.steps.count))
                            continuation.yield(.migrating(storage: box.value, progressObject: progress))
                            try stack.finishAddition(box.value, plan: plan, progress: progress) {
                                continuation.yield(.migrating(storage: box.value, progressObject: progress))
                            }
                            return .success(true)
                        }
                    } catch {
                        return .failure(error)
                    }
                }
                switch outcome {
                case .success(let migrationRequired):
                    continuation.yield(.finished(storage: box.value, migrationRequired: migrationRequired))
                    continuation.finish()
                case .failure(let error):
                    continuation.finish(throwing: Log.error(CoreStoreError.wrap(error), "Failed to add \(box.value.storeDescription) to the DataStack."))
                }
            }
        }
    }
}
