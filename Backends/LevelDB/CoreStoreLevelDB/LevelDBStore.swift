import Foundation
import CoreStoreKeyValue
import CoreStoreStorage

/// A store in a LevelDB database (a directory): a log-structured sorted map, fast sequential
/// writes, snapshots for readers.
///
/// ```swift
/// try dataStack.addStorageAndWait(LevelDBStore(fileURL: URL(fileURLWithPath: "/var/lib/app/store.leveldb")))
/// try dataStack.addStorageAndWait(LevelDBStore(fileName: "Events.leveldb", durability: .normal))
/// ```
/// Records, indexes and metadata are laid out by `KeyValueStorage` (see `CoreStoreKeyValue`);
/// `LevelDBEngine` documents durability (a synced write per commit by default), the lock that
/// keeps a second process or handle out (a clear error, not a wait), and the checks that leave a
/// foreign or damaged directory untouched. LevelDB starts a new log and manifest file every time
/// it opens a database, so even an open that is refused for another model changes those files;
/// the stored data stays as it was.
public final class LevelDBStore: KeyValueStorageWrapper, LocalStorage, Sendable {
    /// The database directory.
    public let fileURL: URL
    /// What the `DataStack` may do when the store holds another model.
    public let localStorageOptions: LocalStorageOptions
    /// The mappings of migration steps that are not inferred.
    public let migrationMappingProviders: [any SchemaMappingProvider]
    /// The record engine over the LevelDB database.
    public let keyValueStorage: KeyValueStorage<LevelDBEngine>

    /// The capacity, in bytes, of the cache of decompressed blocks the store's reads share
    /// (`LevelDBEngine.blockCacheSize`).
    public var blockCacheSize: Int { keyValueStorage.engine.blockCacheSize }

    /// A store in the database directory `fileURL` (created when missing). `blockCacheSize`
    /// bounds the memory LevelDB keeps for the blocks it read (`LevelDBEngine.blockCacheSize`).
    public init(fileURL: URL, configuration: String? = nil, migrationMappingProviders: [any SchemaMappingProvider] = [], localStorageOptions: LocalStorageOptions = .none, durability: CommitDurability = .full, blockCacheSize: Int = LevelDBEngine.defaultBlockCacheSize) {
        self.fileURL = fileURL
        self.migrationMappingProviders = migrationMappingProviders
        self.localStorageOptions = localStorageOptions
        self.keyValueStorage = KeyValueStorage(engine: LevelDBEngine(directoryURL: fileURL, durability: durability, blockCacheSize: blockCacheSize), configuration: configuration)
    }

    /// A store in the directory `fileName` inside `LocalStorageLocation.defaultDirectory`.
    public convenience init(fileName: String, configuration: String? = nil, migrationMappingProviders: [any SchemaMappingProvider] = [], localStorageOptions: LocalStorageOptions = .none, durability: CommitDurability = .full, blockCacheSize: Int = LevelDBEngine.defaultBlockCacheSize) {
        self.init(fileURL: LocalStorageLocation.defaultDirectory.appendingPathComponent(fileName, isDirectory: true),
                  configuration: configuration, migrationMappingProviders: migrationMappingProviders, localStorageOptions: localStorageOptions, durability: durability,
                  blockCacheSize: blockCacheSize)
    }
}
