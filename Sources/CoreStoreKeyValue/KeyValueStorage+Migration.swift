import CoreStoreStorage

extension KeyValueStorage: MigratableStorage {
    /// Starts migrating the closed store from `source` to `destination` (see
    /// `KeyValueMigration`): opens the engine, reads the generation g the root pointer names
    /// and its metadata, deletes the keys of other generations, and returns a migration that
    /// writes the destination as generation g + 1.
    ///
    /// Throws `StorageError/incompatibleStore(path:reason:)` when the engine holds no store or
    /// one whose schema hash is not `source`'s, and `StorageError/invalidRequest(_:)` when the
    /// store is open or already being migrated. The engine is left closed when this throws.
    public func beginMigration(from source: StoreSchema, to destination: StoreSchema) throws -> any StorageMigration {
        guard !lifecycle.isOpen else {
            throw StorageError.invalidRequest("close \(storeDescription) before migrating it")
        }
        try migrationSlot.requireVacant(storeDescription)
        var found: StoredState?
        try engine.open(confirmingWith: { found = try storedState() })
        do {
            guard let stored = found else { throw StorageError.engine(code: 0, message: "\(storeDescription) opened without reading its state") }
            guard let metadata = stored.metadata else {
                throw StorageError.incompatibleStore(path: storeDescription, reason: "it holds no CoreStore store to migrate")
            }
            guard metadata.schemaHash == source.schemaHash else {
                throw StorageError.incompatibleStore(
                    path: storeDescription,
                    reason: "it holds model version '\(metadata.modelVersion)' (hash \(metadata.schemaHash)), not the migration's source '\(source.modelVersion)' (hash \(source.schemaHash))"
                )
            }
            let counters = try engine.read { try Self.storedCounters($0, generation: stored.generation, description: storeDescription) }
            let next = try stored.generation.next(description: storeDescription)
            if stored.hasOtherGenerations {
                try engine.deleteKeys(in: stored.generation.otherRanges)
            }
            let migration = KeyValueMigration(
                engine: engine,
                source: KeyValueLayout(schema: source, generation: stored.generation.number),
                destination: KeyValueLayout(schema: destination, generation: next.number),
                metadata: metadata, counters: counters, slot: migrationSlot
            )
            migrationSlot.occupy(migration)
            return migration
        } catch {
            engine.close()
            throw error
        }
    }
}
