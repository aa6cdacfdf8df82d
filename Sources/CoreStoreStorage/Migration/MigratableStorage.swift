/// A store that can carry its data from one model version to the next.
///
/// The migration engine (``SchemaMigrator``) lives in the core and works through this contract:
/// it streams the records of the old version out of the store, maps them to the new version
/// and writes them back, in batches, so a backend implements only *where* the new version is
/// kept until it is complete and *how* it becomes current. Key-value backends get all of this
/// from `KeyValueStorage` (every `KeyValueStorageWrapper`, a third party's too, migrates with no
/// code of its own).
///
/// ## Implementation requirements
/// 1. **Generations.** ``beginMigration(from:to:)`` is called on a *closed* store whose stored
///    metadata carries `source.schemaHash` (otherwise it throws
///    ``StorageError/incompatibleStore(path:reason:)``). The destination version is written
///    *beside* the source version (another key prefix, other tables inside one transaction, a
///    sibling file): until ``StorageMigration/finish(metadata:counters:)`` returns, opening the
///    store — also after the process is killed at any moment — finds the source version intact.
/// 2. **One atomic step.** `finish` makes the destination the store's data in one atomic,
///    durable step (a metadata write, a transaction commit, a rename). After it, the store opens
///    as the destination version; the source version's space may be reclaimed then or at the
///    next open.
/// 3. **Nothing on failure.** ``StorageMigration/abandon()`` — called after any error — drops
///    what was written for the destination; the store keeps the source version.
/// 4. **Bounded memory.** ``StorageMigration/scanSource(entity:batchSize:_:)`` hands out records a
///    batch at a time and may be interleaved with ``StorageMigration/writeDestination(_:)`` (do
///    not hold one engine snapshot open across destination writes if the engine cannot write
///    while it is open).
/// 5. The store is left closed by `finish` and by `abandon`; the caller opens it again.
public protocol MigratableStorage: StorageInterface {
    /// Starts migrating the closed store's data from `source` (the schema it was written with)
    /// to `destination`.
    func beginMigration(from source: StoreSchema, to destination: StoreSchema) throws -> any StorageMigration
}

/// One migration step in progress inside a store (see ``MigratableStorage``). Used by one
/// thread at a time.
public protocol StorageMigration: AnyObject {
    /// The metadata stored with the source version.
    var sourceMetadata: StoredMetadata { get }

    /// The counters stored with the source version.
    var sourceCounters: CommitCounters { get }

    /// Runs `body` on one snapshot of the source version (read under the source schema).
    func readSource<T>(_ body: (any StorageReader) throws -> T) throws -> T

    /// Visits every source record whose concrete entity is `entity` (not its sub-entities), in
    /// key order, at most `batchSize` at a time. The default pages with
    /// ``StorageReader/records(of:after:limit:)``.
    func scanSource(entity: String, batchSize: Int, _ visit: ([Record]) throws -> Void) throws

    /// Runs `body` on a snapshot of what was written to the destination so far.
    func readDestination<T>(_ body: (any StorageReader) throws -> T) throws -> T

    /// Writes destination records exactly as given (permanent identifiers, already merged and
    /// validated by the core), with their index entries. Throws
    /// ``StorageError/uniqueConstraintViolation(entity:attributes:values:)`` when they break a
    /// unique constraint of the destination schema — at the latest in ``finish(metadata:counters:)``.
    func writeDestination(_ changes: MergedChanges) throws

    /// Applies a lightweight step without copying records, when the engine can (SQLite: `ALTER
    /// TABLE` in the migration's transaction). Returns `false` to let the core copy the records
    /// through ``writeDestination(_:)`` instead; the default does.
    func migrateNatively(_ step: LightweightMigrationStep) throws -> Bool

    /// Makes the destination the store's data, with `metadata` and `counters`, in one atomic
    /// step; leaves the store closed.
    func finish(metadata: StoredMetadata, counters: CommitCounters) throws

    /// Drops everything written for the destination; the store keeps the source version and is
    /// left closed. Never throws: a failure to clean up is reclaimed by the next open.
    func abandon()
}

extension StorageMigration {
    /// Pages through the source with ``StorageReader/records(of:after:limit:)``, each batch in
    /// its own ``readSource(_:)`` snapshot resumed after the last key of the batch before, so
    /// `visit` may write to the destination.
    public func scanSource(entity: String, batchSize: Int, _ visit: ([Record]) throws -> Void) throws {
        let limit = max(1, batchSize)
        var after = Int64.min
        while true {
            let batch = try readSource { try $0.records(of: entity, after: after, limit: limit) }
            if batch.isEmpty { return }
            try visit(batch)
            // A batch that did not fill up ended the entity.
            guard batch.count == limit, let last = batch.last else { return }
            after = last.id.key
        }
    }

    /// Copies records: this engine has no native lightweight path.
    public func migrateNatively(_ step: LightweightMigrationStep) throws -> Bool { false }
}

/// A migration step that changes only attributes, described for an engine's native path.
///
/// Every entity of ``destination`` has the same name, parent, abstractness and relationships
/// (name, kind, destination, inverse) as in ``source``; only attributes, indexes and unique
/// constraints differ, and every destination attribute gets its value from ``attributes``.
public struct LightweightMigrationStep: Sendable {
    /// The schema the data is in.
    public let source: StoreSchema
    /// The schema the data moves to.
    public let destination: StoreSchema
    /// Per destination entity name, one source per destination attribute, by ordinal.
    public let attributes: [String: [AttributeSource]]

    /// Creates a step description.
    public init(source: StoreSchema, destination: StoreSchema, attributes: [String: [AttributeSource]]) {
        self.source = source
        self.destination = destination
        self.attributes = attributes
    }

    /// Where a destination attribute's value comes from.
    public enum AttributeSource: Sendable, Hashable {
        /// The source attribute with this name (same ``AttributeType``); a `null` becomes
        /// `nullReplacement` when one is given (an optional attribute became non-optional).
        case attribute(String, nullReplacement: Value?)
        /// The same value for every record (a new attribute's default, or `null`).
        case constant(Value)
    }
}
