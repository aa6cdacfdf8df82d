import Foundation
import CoreStoreKeyValue
import CoreStoreStorage

/// A CoreStore store in an append-only log (a directory holding the file `log`):
/// `try dataStack.addStorageAndWait(AppendLogStore(fileURL: url))`.
public final class AppendLogStore: KeyValueStorageWrapper, LocalStorage, Sendable {
    /// The store directory.
    public let fileURL: URL
    /// What the `DataStack` may do when the store holds another model.
    public let localStorageOptions: LocalStorageOptions
    /// The mappings of migration steps that are not inferred (the store migrates through
    /// `KeyValueStorage`, with no code of its own).
    public let migrationMappingProviders: [any SchemaMappingProvider]
    /// The record engine every `StorageInterface` requirement is forwarded to.
    public let keyValueStorage: KeyValueStorage<AppendLogEngine>

    /// A store in the directory `fileURL` (created when missing).
    public init(
        fileURL: URL, configuration: String? = nil, migrationMappingProviders: [any SchemaMappingProvider] = [],
        localStorageOptions: LocalStorageOptions = .none
    ) {
        self.fileURL = fileURL
        self.migrationMappingProviders = migrationMappingProviders
        self.localStorageOptions = localStorageOptions
        self.keyValueStorage = KeyValueStorage(engine: AppendLogEngine(directoryURL: fileURL), configuration: configuration)
    }
}
