import Foundation
import CoreStoreKeyValue
import CoreStoreStorage

/// A store in an LMDB environment (a directory holding `data.mdb` and `lock.mdb`): memory-mapped,
/// readers that never block and are never blocked, one writer, crash-safe copy-on-write pages.
///
/// ```swift
/// try dataStack.addStorageAndWait(LMDBStore(fileURL: URL(fileURLWithPath: "/var/lib/app/store.lmdb")))
/// try dataStack.addStorageAndWait(LMDBStore(fileName: "Cache.lmdb", localStorageOptions: .recreateStoreOnModelMismatch))
/// ```
/// Records, indexes and metadata are laid out by `KeyValueStorage` (see `CoreStoreKeyValue`);
/// `LMDBEngine` documents the map-size growth, durability levels and file checks. A directory
/// that holds something other than an LMDB environment is reported as
/// `StorageError.incompatibleStore` and left as it was.
///
/// LMDB limits keys to 511 bytes: an indexed or unique string attribute whose encoded value
/// passes about 480 bytes cannot be saved in an index (the commit fails with an engine error).
public final class LMDBStore: KeyValueStorageWrapper, LocalStorage, Sendable {
    /// The environment directory.
    public let fileURL: URL
    /// What the `DataStack` may do when the store holds another model.
    public let localStorageOptions: LocalStorageOptions
    /// The mappings of migration steps that are not inferred.
    public let migrationMappingProviders: [any SchemaMappingProvider]
    /// The record engine over the LMDB environment.
    public let keyValueStorage: KeyValueStorage<LMDBEngine>

    /// A store in the environment directory `fileURL` (created when missing). With
    /// `verifiesOnOpen`, opening reads every page of an existing environment and refuses a
    /// damaged one with an error, which liblmdb would otherwise meet with a crash (see
    /// `LMDBEngine`).
    public init(
        fileURL: URL, configuration: String? = nil, migrationMappingProviders: [any SchemaMappingProvider] = [], localStorageOptions: LocalStorageOptions = .none,
        durability: CommitDurability = .full, initialMapSize: Int = LMDBEngine.defaultInitialMapSize, verifiesOnOpen: Bool = false
    ) {
        self.fileURL = fileURL
        self.migrationMappingProviders = migrationMappingProviders
        self.localStorageOptions = localStorageOptions
        self.keyValueStorage = KeyValueStorage(
            engine: LMDBEngine(directoryURL: fileURL, durability: durability, initialMapSize: initialMapSize, verifiesOnOpen: verifiesOnOpen),
            configuration: configuration
        )
    }

    /// A store in the directory `fileName` inside `LocalStorageLocation.defaultDirectory`.
    public convenience init(fileName: String, configuration: String? = nil, migrationMappingProviders: [any SchemaMappingProvider] = [], localStorageOptions: LocalStorageOptions = .none, durability: CommitDurability = .full) {
        self.init(fileURL: LocalStorageLocation.defaultDirectory.appendingPathComponent(fileName, isDirectory: true),
                  configuration: configuration, migrationMappingProviders: migrationMappingProviders, localStorageOptions: localStorageOptions, durability: durability)
    }
}
