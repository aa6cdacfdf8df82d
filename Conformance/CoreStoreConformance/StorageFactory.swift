import Foundation
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
///   closed; only called when the store declares `StorageCapabilities/persistent`.
/// - ``cleanUp()`` is called once the suite is done with every store the factory made.
/// - For stores that declare `StorageCapabilities/localFiles`: ``location(of:)`` names the
///   file or directory a store keeps its data in (before its first open: where it will create
///   it), and ``files(of:)`` lists the regular files holding its data once it is closed. The
///   defaults read `LocalStorage.fileURL`; a store that declares `localFiles` but whose factory
///   answers `nil` or no files fails the `files` cases with a message saying so, rather than
///   passing them without damaging anything.
/// - For the `migrations` group (stores that declare `StorageCapabilities/persistent` and
///   `StorageCapabilities/localFiles`, which are `LocalStorage`):
///   ``reopen(_:migrationMappingProviders:localStorageOptions:)`` returns a new instance over
///   the data of `storage` whose `migrationMappingProviders` and `localStorageOptions` are the
///   ones given — custom migrations are a property of the store instance. The default passes
///   neither and throws ``StorageFactoryLimitation`` unless both are empty, which fails the cases
///   that need them with a message saying so.
public protocol StorageFactory: Sendable {
    /// The backend's name in reports, such as `"SQLiteStore"`.
    var name: String { get }

    /// A new, empty, isolated store for `configuration` (`nil`: every entity).
    func makeStorage(configuration: String?) throws -> any StorageInterface

    /// A new store instance over the data `storage` kept (persistent backends only).
    func reopen(_ storage: any StorageInterface) throws -> any StorageInterface

    /// A new store instance over the data `storage` kept (closed by the suite) that migrates
    /// with `migrationMappingProviders` and has `localStorageOptions`.
    func reopen(
        _ storage: any StorageInterface, migrationMappingProviders: [any SchemaMappingProvider],
        localStorageOptions: LocalStorageOptions
    ) throws -> any StorageInterface

    /// Removes whatever the factory's stores left behind (files, directories).
    func cleanUp()

    /// The file or directory `storage` keeps its data in, or where it will create it; `nil` when
    /// it keeps no files.
    func location(of storage: any StorageInterface) -> URL?

    /// The regular files that hold the data of `storage` (closed by the suite before it asks),
    /// for the cases that damage or replace them.
    func files(of storage: any StorageInterface) -> [URL]
}

extension StorageFactory {
    /// Nothing to clean up.
    public func cleanUp() {}

    /// ``reopen(_:)`` when there are neither providers nor options to pass; otherwise throws
    /// ``StorageFactoryLimitation``: a factory passes them only when it implements this method.
    public func reopen(
        _ storage: any StorageInterface, migrationMappingProviders: [any SchemaMappingProvider],
        localStorageOptions: LocalStorageOptions
    ) throws -> any StorageInterface {
        guard migrationMappingProviders.isEmpty && localStorageOptions.isEmpty else {
            throw StorageFactoryLimitation(factory: name, missing: "reopen(_:migrationMappingProviders:localStorageOptions:)",
                                           purpose: "pass migrationMappingProviders and localStorageOptions to a reopened store")
        }
        return try reopen(storage)
    }

    /// `fileURL` of a `LocalStorage`, otherwise `nil`.
    public func location(of storage: any StorageInterface) -> URL? {
        (storage as? any LocalStorage)?.fileURL
    }

    /// The regular files at or under ``location(of:)``, in path order: the file itself, or every
    /// file inside the directory (sub-directories included).
    public func files(of storage: any StorageInterface) -> [URL] {
        guard let location = location(of: storage) else { return [] }
        return StoreFiles.regularFiles(at: location)
    }
}

/// A case needs something the factory does not implement.
public struct StorageFactoryLimitation: Error, Sendable, CustomStringConvertible {
    /// The factory's name.
    public let factory: String
    /// The requirement the factory does not implement.
    public let missing: String
    /// What the case needed it for.
    public let purpose: String

    /// Creates the error.
    public init(factory: String, missing: String, purpose: String) {
        self.factory = factory
        self.missing = missing
        self.purpose = purpose
    }

    /// `<factory> cannot <purpose>: implement StorageFactory.<missing>`.
    public var description: String {
        "\(factory) cannot \(purpose): implement StorageFactory.\(missing)"
    }
}

/// Reading, damaging and comparing the files of a store.
public enum StoreFiles {
    /// The regular files at `url` (a file) or anywhere under it (a directory), in path order.
    public static func regularFiles(at url: URL) -> [URL] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return [] }
        guard isDirectory.boolValue else { return isRegularFile(url) ? [url] : [] }
        let paths = (try? FileManager.default.subpathsOfDirectory(atPath: url.path)) ?? []
        return paths.sorted().map { url.appendingPathComponent($0) }.filter(isRegularFile)
    }

    /// Every path at or under `url` with its bytes (`nil` for a directory), to compare before
    /// and after an operation that must leave them untouched.
    static func snapshot(at url: URL) throws -> [String: Data?] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return [:] }
        guard isDirectory.boolValue else { return ["": try Data(contentsOf: url)] }
        var result: [String: Data?] = [".": nil]
        for path in try FileManager.default.subpathsOfDirectory(atPath: url.path) {
            let file = url.appendingPathComponent(path)
            result[path] = isRegularFile(file) ? try Data(contentsOf: file) : nil
        }
        return result
    }

    /// `count` bytes that are no store's format: a fixed, repeatable, non-zero pattern.
    static func garbage(count: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) | 1 })
    }

    private static func isRegularFile(_ url: URL) -> Bool {
        let type = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.type] as? FileAttributeType
        return type == .typeRegular
    }
}
