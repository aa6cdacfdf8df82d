import CoreStoreStorage

extension StorageHosting {
    /// Adds a ``SQLiteStore`` at the default location (``SQLiteStore/defaultFileURL``):
    /// `try dataStack.addStorageAndWait()`.
    @discardableResult
    public func addStorageAndWait() throws -> SQLiteStore {
        try addStorageAndWait(SQLiteStore())
    }
}
