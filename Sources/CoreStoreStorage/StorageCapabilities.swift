/// What a storage engine promises, declared once by each backend.
///
/// The conformance suite skips exactly the checks a backend's capabilities rule out, and says so.
public struct StorageCapabilities: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: UInt32
    /// Creates capabilities from raw bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Data survives closing and reopening the store.
    public static let persistent = StorageCapabilities(rawValue: 1 << 0)
    /// A returned ``StorageInterface/write(_:)`` survives a crash or power loss.
    public static let durableCommits = StorageCapabilities(rawValue: 1 << 1)
    /// ``StorageInterface/read(_:)`` may run on several threads at once, and alongside a write.
    public static let concurrentReaders = StorageCapabilities(rawValue: 1 << 2)
    /// The backend filters fetches itself (``FetchResult/pending`` never contains `.filter`).
    public static let nativePredicates = StorageCapabilities(rawValue: 1 << 3)
    /// The backend sorts fetches itself.
    public static let nativeSorting = StorageCapabilities(rawValue: 1 << 4)
    /// The data lives in files on the local file system (the store is usually a
    /// ``LocalStorage``). Files that are not this kind of store, or are damaged, must be refused
    /// with ``StorageError/incompatibleStore(path:reason:)`` and left byte-for-byte as they were.
    public static let localFiles = StorageCapabilities(rawValue: 1 << 5)
}
