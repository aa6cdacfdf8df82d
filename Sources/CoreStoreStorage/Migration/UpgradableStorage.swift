import Foundation

/// A store that a `DataStack` brings to the current model version when it holds data of an
/// earlier one: what the stack may do on a mismatch, and which custom mappings it migrates with.
///
/// ``LocalStorage`` (a store in local files) refines it; a store in a database server
/// (`PostgresStore`) adopts it directly. Together with ``MigratableStorage`` (how the engine keeps
/// the new version beside the old one until it is complete), it is what
/// `addStorage(_:completion:)`, `upgradeStorageIfNeeded(_:completion:)` and
/// `requiredMigrationsForStorage(_:)` accept.
///
/// ## Implementation requirements
/// 1. ``storeExists()`` answers without creating anything: the forecast of a store that is not
///    there yet must leave it not there.
/// 2. ``storeURL`` names the store in errors. It never carries a password.
public protocol UpgradableStorage: StorageInterface {
    /// What the `DataStack` may do when the store does not match the model.
    var localStorageOptions: LocalStorageOptions { get }

    /// The mappings of migration steps that are not inferred (see ``SchemaMappingProvider``).
    var migrationMappingProviders: [any SchemaMappingProvider] { get }

    /// Where the store is, as the migration errors of `CoreStoreError` name it (their
    /// `localStoreURL`): the file of a local store, a `postgres://` URL of a server's.
    var storeURL: URL { get }

    /// Whether the store holds data already (without creating or changing anything).
    func storeExists() throws -> Bool
}

extension UpgradableStorage {
    /// No custom mappings: every migration step is inferred.
    public var migrationMappingProviders: [any SchemaMappingProvider] { [] }
}
