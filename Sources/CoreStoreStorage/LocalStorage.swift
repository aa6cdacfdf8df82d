import Foundation

/// A store kept in a file or directory on the local file system (`SQLiteStore`, `LMDBStore`,
/// `LevelDBStore`).
///
/// ## Implementation requirements
/// In addition to those of ``StorageInterface``:
/// 1. `fileURL` names the file (or directory) the store owns. Two stores with the same
///    `fileURL` are the same store: a `DataStack` refuses to add the second one while the
///    first is in use in the process.
/// 2. ``StorageInterface/open(schema:)`` creates the missing parent directories and the file.
///    An existing file that is not a store of this kind, or is damaged, throws
///    ``StorageError/incompatibleStore(path:reason:)`` and is left byte-for-byte as it was.
/// 3. ``StorageInterface/erase()`` deletes the file (and the engine's side files) so that the
///    next `open` starts afresh.
/// 4. ``StorageInterface/capabilities`` includes ``StorageCapabilities/localFiles``, so that the
///    conformance suite's `files` group damages the files and checks requirement 2.
///
/// What a `DataStack` may do on a model mismatch and the custom mappings it migrates with are
/// ``UpgradableStorage``'s requirements, which this protocol refines.
public protocol LocalStorage: UpgradableStorage {
    /// The file or directory holding the store.
    var fileURL: URL { get }
}

extension LocalStorage {
    /// ``fileURL``.
    public var storeURL: URL { fileURL }

    /// Whether something exists at ``fileURL``.
    public func storeExists() throws -> Bool {
        FileManager.default.fileExists(atPath: fileURL.path)
    }
}

/// What a `DataStack` may do to a store that does not match the current model (see
/// ``UpgradableStorage``; the name is CoreStore's, from when only local stores migrated).
public struct LocalStorageOptions: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: Int
    /// Creates options from raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Never delete data: a store of another model makes adding it fail (the default).
    public static let none: LocalStorageOptions = []
    /// When the stored model differs from the current one and cannot be migrated, erase the
    /// store and start a new one. Meant for caches whose data can be downloaded again.
    public static let recreateStoreOnModelMismatch = LocalStorageOptions(rawValue: 1 << 0)
    /// Never migrate through intermediate model versions, only directly.
    public static let preventProgressiveMigration = LocalStorageOptions(rawValue: 1 << 1)
    /// Allow a migration to run while the store is added synchronously.
    public static let allowSynchronousLightweightMigration = LocalStorageOptions(rawValue: 1 << 2)
}

/// Where local stores live when the application names only a file name.
public enum LocalStorageLocation {
    /// `$XDG_DATA_HOME/<process name>` when `XDG_DATA_HOME` is an absolute path, otherwise
    /// `~/.local/share/<process name>` (the XDG Base Directory default).
    public static var defaultDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        let base: URL
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            base = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share", isDirectory: true)
        }
        return base.appendingPathComponent(ProcessInfo.processInfo.processName, isDirectory: true)
    }
}

extension LocalStorage {
    /// The canonical path of ``fileURL``: absolute, standardized, symbolic links resolved.
    public var canonicalPath: String {
        fileURL.standardizedFileURL.resolvingSymlinksInPath().path
    }
}

/// Whatever stores can be added to. The framework's `DataStack` is one; backends extend this
/// protocol (for example with a no-argument `addStorageAndWait()` that adds their default
/// store) without depending on the user API.
public protocol StorageHosting: AnyObject {
    /// Opens `storage` with the host's model and adds it, blocking until done.
    @discardableResult
    func addStorageAndWait<T: StorageInterface>(_ storage: T) throws -> T
}
