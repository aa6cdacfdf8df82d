import Foundation
import CoreStoreStorage

/// The steps that take one store from its stored model version to the stack's current one,
/// each with its mapping; made before anything is changed, run by ``run(progress:report:)``.
struct MigrationPlan {
    /// The store.
    let storage: any MigratableStorage
    /// Where the store is, for errors.
    let url: URL
    /// The steps, in order.
    let steps: [SchemaMapping]
    /// The schema the store has after the last step.
    let target: StoreSchema

    /// Whether every step is inferred.
    var isLightweight: Bool { steps.allSatisfy { $0.migrationType.isLightweightMigration } }

    /// The steps as `requiredMigrationsForStorage` reports them.
    var migrationTypes: [MigrationType] { steps.map(\.migrationType) }

    /// Runs every step; `progress` (one unit per step) is advanced as records are copied and
    /// `report` called after each advance.
    ///
    /// A store that other processes share may be migrated by one of them between this plan and
    /// its steps (each step checks the stored version under the store's lock before it starts).
    /// When a step fails and the store is found at a later version of the plan, the steps up to
    /// it are done and the rest go on from there.
    func run(progress: Progress?, report: () -> Void) throws(CoreStoreError) {
        var index = 0
        while index < steps.count {
            let step = steps[index]
            let child = progress.map { Progress(totalUnitCount: 1, parent: $0, pendingUnitCount: 1) }
            let started = Date()
            Log.log(.notice, "Migrating \(storage.storeDescription) from '\(step.source.modelVersion)' to '\(step.destination.modelVersion)' (\(step.migrationType.isLightweightMigration ? "lightweight" : "heavyweight")).")
            do {
                try SchemaMigrator(mapping: step).migrate(storage) { completed, total in
                    guard let child else { return }
                    child.totalUnitCount = max(total, 1)
                    child.completedUnitCount = total == 0 ? 1 : completed
                    report()
                }
            } catch let error as MigrationError {
                throw Log.error(.migrationFailed(localStoreURL: url, sourceVersion: error.sourceVersion, destinationVersion: error.destinationVersion, reason: error.reason), "Migration rolled back.")
            } catch let error as TransformerError {
                Log.log(.warning, error.description)
                throw .userError(error: error.underlying)
            } catch {
                if let next = stepMigratedElsewhere(after: index) {
                    Log.log(.notice, "\(storage.storeDescription) was migrated by another process meanwhile; it is at '\(next < steps.count ? steps[next].source.modelVersion : target.modelVersion)' now.")
                    for _ in (index + 1)..<next {
                        let done = progress.map { Progress(totalUnitCount: 1, parent: $0, pendingUnitCount: 1) }
                        done?.completedUnitCount = 1
                    }
                    if let child { child.completedUnitCount = child.totalUnitCount }
                    report()
                    index = next
                    continue
                }
                throw Log.error(CoreStoreError.wrap(error), "Migrating \(storage.storeDescription) from '\(step.source.modelVersion)' failed; the store keeps that version.")
            }
            if let child { child.completedUnitCount = child.totalUnitCount }
            report()
            Log.log(.notice, "Migrated \(storage.storeDescription) to '\(step.destination.modelVersion)' in \(String(format: "%.2f", Date().timeIntervalSince(started))) s.")
            index += 1
        }
    }

    /// After step `index` failed: the index of the step whose source the shared store holds now
    /// (`steps.count` when it holds the target), when another process took it past step `index`;
    /// `nil` when it holds what it held, or is not shared.
    private func stepMigratedElsewhere(after index: Int) -> Int? {
        // `try?` also makes "no store" (`nil`) a `nil`.
        guard storage is any SharedAccessStorage, let stored = try? storage.open(schema: target) else {
            storage.close()
            return nil
        }
        storage.close()
        if stored.schemaHash == target.schemaHash { return steps.count }
        return steps.indices.first { $0 > index && steps[$0].source.schemaHash == stored.schemaHash }
    }
}

extension DataStack {
    /// The migration plan of `storage`, whose stored metadata is `stored`, to `target` (the
    /// current version's schema for the store's configuration). Throws
    /// ``CoreStoreError/schemaMismatch(store:storedVersion:storedHash:expectedVersion:expectedHash:)``
    /// for a model the history does not declare, and the migration errors of CoreStore for a
    /// store that cannot be migrated.
    func migrationPlan(for storage: any StorageInterface, stored: StoredMetadata, target: StoreSchema) throws(CoreStoreError) -> MigrationPlan {
        let mismatch = CoreStoreError.schemaMismatch(
            store: storage.storeDescription, storedVersion: stored.modelVersion, storedHash: stored.schemaHash,
            expectedVersion: target.modelVersion, expectedHash: target.schemaHash
        )
        guard let upgradable = storage as? any UpgradableStorage, let migratable = storage as? any MigratableStorage,
              let sourceSchema = schemaHistory.schema(for: stored.modelVersion) else { throw mismatch }
        let url = upgradable.storeURL
        func notFound(_ reason: String) -> CoreStoreError {
            .mappingModelNotFound(localStoreURL: url, targetModelVersion: target.modelVersion, reason: reason)
        }
        let chain = schemaHistory.migrationChain
        let versions: [String]
        if chain.isEmpty {
            versions = [stored.modelVersion, target.modelVersion]
        } else {
            guard let path = chain.path(from: stored.modelVersion) else {
                throw notFound("the store is at model version '\(stored.modelVersion)', which the MigrationChain does not contain.")
            }
            guard path.last == target.modelVersion else {
                throw notFound("the MigrationChain leads from '\(stored.modelVersion)' to '\(path.last ?? "")', not to the current version.")
            }
            versions = path
        }
        if versions.count > 2 && upgradable.localStorageOptions.contains(.preventProgressiveMigration) {
            throw .progressiveMigrationRequired(localStoreURL: url)
        }
        var schemas: [StoreSchema] = []
        for version in versions {
            guard let schema = version == stored.modelVersion ? sourceSchema : schemaHistory.schema(for: version) else {
                throw notFound("no schema declares model version '\(version)'.")
            }
            schemas.append(try schema.runtime().storeSchema(configuration: storage.configuration))
        }
        guard schemas[0].schemaHash == stored.schemaHash else {
            throw notFound("the store's model '\(stored.modelVersion)' (hash \(stored.schemaHash)) differs from the declared '\(stored.modelVersion)' (hash \(schemas[0].schemaHash)).")
        }
        var steps: [SchemaMapping] = []
        for (source, destination) in zip(schemas, schemas.dropFirst()) {
            let provider = upgradable.migrationMappingProviders.first {
                $0.handles(sourceVersion: source.modelVersion, destinationVersion: destination.modelVersion)
            } ?? InferredSchemaMappingProvider()
            do {
                steps.append(try provider.schemaMapping(from: source, to: destination))
            } catch let error as MigrationError {
                throw notFound("the step from '\(error.sourceVersion)' to '\(error.destinationVersion)' cannot be mapped: \(error.reason).")
            } catch {
                throw notFound("the step from '\(source.modelVersion)' to '\(destination.modelVersion)' cannot be mapped: \(error).")
            }
        }
        return MigrationPlan(storage: migratable, url: url, steps: steps, target: target)
    }
}
