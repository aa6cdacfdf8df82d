import CoreStoreStorage

/// Makes the stores the conformance suite runs against: the one thing a backend author writes
/// to run the whole suite.
///
/// ```swift
/// struct MyBackendFactory: StorageFactory {
///     let name = "MyStore"
///     func makeStorage(configuration: String?) throws -> any StorageInterface {
///         MyStore(directory: temporaryDirectory(), configuration: configuration)
///     }
///     func reopen(_ storage: any StorageInterface) throws -> any StorageInterface {
///         MyStore(directory: (storage as! MyStore).directory, configuration: storage.configuration)
///     }
/// }
/// ```
///
/// ## Requirements
/// - ``makeStorage(configuration:)`` returns a new, empty, closed store that shares nothing with
///   any other store it made (its own file, directory or memory).
/// - ``reopen(_:)`` returns a new instance over the same data as `storage`, which the suite has
///   closed; only called when the store declares ``StorageCapabilities/persistent``.
/// - ``cleanUp()`` is called once the suite is done with every store the factory made.
public protocol StorageFactory: Sendable {
    /// The backend's name in reports, such as `"SQLiteStore"`.
    var name: String { get }

    /// A new, empty, isolated store for `configuration` (`nil`: every entity).
    func makeStorage(configuration: String?) throws -> any StorageInterface

    /// A new store instance over the data `storage` kept (persistent backends only).
    func reopen(_ storage: any StorageInterface) throws -> any StorageInterface

    /// Removes whatever the factory's stores left behind (files, directories).
    func cleanUp()
}

extension StorageFactory {
    /// Nothing to clean up.
    public func cleanUp() {}
}
