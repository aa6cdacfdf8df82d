import Foundation

/// The schema a store was written with, kept in its metadata so that tools (`corestore inspect`,
/// `dump`, `check`, `copy`) can read a store without the application's model.
///
/// The framework writes it: a `DataStack` records its schema when it adds a store whose
/// metadata lacks it or holds another one, and ``SchemaMigrator`` records the destination's in
/// the step that finishes a migration. Engines store it as part of ``StoredMetadata/userInfo``
/// and need no code for it. Keys of `userInfo` that begin with `corestore.` are the framework's.
extension StoredMetadata {
    /// The `userInfo` key holding the schema as JSON.
    public static let schemaKey = "corestore.schema"
    /// The `userInfo` key holding the model's version lock (the per-entity hashes, as the Swift
    /// literal `CoreStoreSchema(versionLock:)` takes), when the model was declared in Swift.
    public static let versionLockKey = "corestore.versionLock"

    /// The JSON form of `schema` that `recordedSchema()` reads back.
    public static func schemaJSON(_ schema: StoreSchema) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding these plain values cannot fail: every double is finite or written as text.
        guard let data = try? encoder.encode(schema) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Records `schema` (which must be the one `modelVersion` and `schemaHash` name).
    public mutating func recordSchema(_ schema: StoreSchema) {
        userInfo[Self.schemaKey] = Self.schemaJSON(schema)
    }

    /// The recorded schema: `nil` when the store has none (written before schemas were
    /// recorded, and not opened by a `DataStack` since). Throws
    /// ``StorageError/incompatibleStore(path:reason:)`` naming `store` when the recorded text
    /// is not a schema, or is the schema of another version than the metadata names.
    public func recordedSchema(store: String) throws -> StoreSchema? {
        guard let text = userInfo[Self.schemaKey] else { return nil }
        let schema: StoreSchema
        do {
            schema = try JSONDecoder().decode(StoreSchema.self, from: Data(text.utf8))
        } catch {
            throw StorageError.incompatibleStore(path: store, reason: "its recorded schema cannot be read (\(error))")
        }
        guard schema.schemaHash == schemaHash, schema.modelVersion == modelVersion else {
            throw StorageError.incompatibleStore(
                path: store,
                reason: "its recorded schema is of model version '\(schema.modelVersion)' (hash \(schema.schemaHash)), but its data is of '\(modelVersion)' (hash \(schemaHash))"
            )
        }
        return schema
    }
}
