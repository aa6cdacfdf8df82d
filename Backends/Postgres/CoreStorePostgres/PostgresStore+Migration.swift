import Foundation
import CoreStoreSQL
import CoreStoreStorage

/// A `DataStack` migrates a store in PostgreSQL as it migrates a local one: `addStorage(_:completion:)`
/// runs each step of the migration chain in one transaction (see `PostgresMigration`), under the
/// store's advisory lock, so two processes that start at once do not both migrate: the second
/// waits, then finds the store at the new version and adds it.
extension PostgresStore: UpgradableStorage, MigratableStorage {
    /// `postgres://user@host:port/database#schema`, without the password.
    public var storeURL: URL {
        PostgresLocation.url(connectionString, schemaName: schemaName)
    }

    /// Whether the store's schema holds tables (connects; creates nothing).
    public func storeExists() throws -> Bool {
        let connection = try currentState?.writer.current() ?? connect()
        return !(try PostgresMetadata.tables(connection, schemaName: schemaName).isEmpty)
    }

    /// Starts a migration of the closed store on a connection of its own: one transaction that
    /// holds the store's advisory lock and its counter rows until
    /// `PostgresMigration/finish(metadata:counters:)` commits it (see `PostgresMigration`).
    ///
    /// Throws `StorageError.incompatibleStore` when the schema holds no store, or one whose
    /// schema hash is not `source.schemaHash` (another process migrated it meanwhile), and
    /// `StorageError.invalidRequest` while the store is open.
    public func beginMigration(from source: StoreSchema, to destination: StoreSchema) throws -> any StorageMigration {
        guard currentState == nil else {
            throw StorageError.invalidRequest("\(storeDescription) is open; close it before migrating it")
        }
        return try PostgresMigration(connection: try connect(), schemaName: schemaName, source: source, destination: destination)
    }
}
