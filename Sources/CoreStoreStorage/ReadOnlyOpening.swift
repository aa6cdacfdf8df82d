/// A store that can be opened to be read only, as the store tools open what they inspect, dump,
/// check or copy from.
///
/// ## Implementation requirements
/// 1. **Nothing is created.** A store without CoreStore metadata (a missing or empty file,
///    someone else's database) throws ``StorageError/incompatibleStore(path:reason:)`` and is
///    left as it was.
/// 2. **Nothing is changed by the store.** No journal mode is switched, no file format
///    upgraded, no garbage of a crashed migration deleted, no metadata written. What an engine
///    library itself does on every open (LevelDB rewrites its manifest) is the engine's.
/// 3. **Reads only.** When `schema.schemaHash` is the stored hash, the store is open and reads
///    as after ``StorageInterface/open(schema:)``; ``StorageInterface/write(_:)`` and
///    ``StorageInterface/erase()`` throw ``StorageError/invalidRequest(_:)`` until it is
///    closed. Otherwise the stored metadata is returned and the store is left closed.
public protocol ReadOnlyOpening: StorageInterface {
    /// Opens the existing store for reads with `schema`; returns its stored metadata.
    func openForReading(schema: StoreSchema) throws -> StoredMetadata
}

extension StorageError {
    /// The error of a write or erase on a store opened with
    /// ``ReadOnlyOpening/openForReading(schema:)``.
    public static func openedForReading(_ store: String) -> StorageError {
        .invalidRequest("\(store) was opened for reading only")
    }
}
