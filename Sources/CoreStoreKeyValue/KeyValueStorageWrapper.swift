import CoreStoreStorage

/// A public store class that is a ``KeyValueStorage`` over one engine, such as `LMDBStore` or
/// `LevelDBStore`: declare ``keyValueStorage`` and every `StorageInterface` requirement is
/// forwarded to it, and so are `MigratableStorage`'s and `StorageIntegrityChecking`'s: the
/// wrapper migrates and is checked with no code of its own.
///
/// ```swift
/// public final class MyStore: KeyValueStorageWrapper, LocalStorage {
///     public let fileURL: URL
///     public let localStorageOptions: LocalStorageOptions
///     public let keyValueStorage: KeyValueStorage<MyEngine>
///     …
/// }
/// ```
public protocol KeyValueStorageWrapper: MigratableStorage, StorageIntegrityChecking, ReadOnlyOpening {
    /// The engine type.
    associatedtype Engine: OrderedKeyValueStore
    /// The record engine every requirement is forwarded to.
    var keyValueStorage: KeyValueStorage<Engine> { get }
}

extension KeyValueStorageWrapper {
    /// The configuration whose entities this store holds.
    public var configuration: String? { keyValueStorage.configuration }
    /// What the engine promises, and `StorageCapabilities/localFiles` when the wrapper is a
    /// `LocalStorage`.
    public var capabilities: StorageCapabilities {
        var capabilities = keyValueStorage.capabilities
        if self is any LocalStorage { capabilities.insert(.localFiles) }
        return capabilities
    }
    /// The engine's description.
    public var storeDescription: String { keyValueStorage.storeDescription }
    /// Opens the store (see `StorageInterface/open(schema:)`).
    public func open(schema: StoreSchema) throws -> StoredMetadata? { try keyValueStorage.open(schema: schema) }
    /// Opens the existing store for reads only (see ``KeyValueStorage/openForReading(schema:)``).
    public func openForReading(schema: StoreSchema) throws -> StoredMetadata { try keyValueStorage.openForReading(schema: schema) }
    /// Runs `body` on one snapshot.
    public func read<T>(_ body: (any StorageReader) throws -> T) throws -> T { try keyValueStorage.read(body) }
    /// Applies `changes` atomically.
    public func write(_ changes: ChangeSet) throws -> CommitInfo { try keyValueStorage.write(changes) }
    /// Deletes every record and the metadata.
    public func erase() throws { try keyValueStorage.erase() }
    /// Closes the store.
    public func close() { keyValueStorage.close() }
    /// Checks the indexes against the records (see ``KeyValueStorage/checkIntegrity(_:)``).
    public func checkIntegrity(_ problem: (String) -> Void) throws -> Int { try keyValueStorage.checkIntegrity(problem) }
}

extension KeyValueStorageWrapper {
    /// Starts migrating the closed store (see ``KeyValueStorage/beginMigration(from:to:)``):
    /// every wrapper migrates through its ``keyValueStorage``, with no code of its own.
    public func beginMigration(from source: StoreSchema, to destination: StoreSchema) throws -> any StorageMigration {
        try keyValueStorage.beginMigration(from: source, to: destination)
    }
}
