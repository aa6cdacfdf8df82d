import Foundation
import CoreStoreStorage

extension SQLiteStore: MigratableStorage {
    /// Starts a migration of the closed store: opens a writer connection and begins the one
    /// `BEGIN IMMEDIATE` transaction the whole migration runs in, so that until
    /// `SQLiteMigration/finish(metadata:counters:)` commits, the file holds the source version
    /// (also after a crash: SQLite never applies an uncommitted transaction).
    ///
    /// Throws `StorageError.incompatibleStore` when the file holds no store or one whose schema
    /// hash is not `source.schemaHash`, and `StorageError.invalidRequest` while the store is open.
    public func beginMigration(from source: StoreSchema, to destination: StoreSchema) throws -> any StorageMigration {
        guard !isOpen else {
            throw StorageError.invalidRequest("\(storeDescription) is open; close it before migrating it")
        }
        let path = fileURL.path
        guard let existing = try SQLiteMetadata.inspect(path: path, schema: source) else {
            throw StorageError.incompatibleStore(path: path, reason: "it holds no store to migrate")
        }
        guard existing.schemaHash == source.schemaHash else {
            throw StorageError.incompatibleStore(path: path, reason: "it holds model version '\(existing.modelVersion)' (schema hash \(existing.schemaHash)), not the migration's source '\(source.modelVersion)' (schema hash \(source.schemaHash))")
        }
        let writer = try openWriter(schema: source)
        return try SQLiteMigration(connection: writer, source: source, destination: destination)
    }
}
