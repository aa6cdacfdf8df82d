import CoreStore
import CoreStoreStorage
import Foundation

/// A store a tool opened without the application's model: with the schema recorded in its
/// metadata (see `StoredMetadata.recordedSchema(store:)`), through `ReadOnlyOpening`, so that
/// reading creates, repairs and upgrades nothing; only `load` opens for writing.
final class OpenedStore {
    let url: URL
    let backend: StoreBackend
    let storage: any LocalStorage
    /// What the store keeps about its data.
    let metadata: StoredMetadata
    /// The recorded schema; `nil` when the store has none (it is then left closed).
    let schema: StoreSchema?

    private init(url: URL, backend: StoreBackend, storage: any LocalStorage, metadata: StoredMetadata, schema: StoreSchema?) {
        self.url = url
        self.backend = backend
        self.storage = storage
        self.metadata = metadata
        self.schema = schema
    }

    deinit {
        storage.close()
    }

    /// A schema no store is written with: opening a store for reading with it only reads the
    /// metadata and leaves the store closed.
    private static let probe = StoreSchema(modelVersion: "", schemaHash: "corestore-tool-probe", entities: [])

    /// What a tool does with the store it opens.
    enum Access {
        /// Reads it (another process may have it open, except a LevelDB store).
        case reading
        /// Opens it for writing, as an app does once its metadata was read without writing.
        case writing
        /// Reads it now and changes it later through another instance (a migration).
        case changingLater

        var changesStore: Bool { self != .reading }
    }

    /// Opens the store at `path`, of `backend` or of the backend its files show, for `access`;
    /// `verifying` checks an LMDB store's pages before opening it. A store another process has
    /// open is refused when the tool would change it (and always for LevelDB) — except that
    /// records may be written into a SQLite store beside the app, whose stacks notice them.
    static func open(path: String, backend: StoreBackend?, verifying: Bool = false, access: Access = .reading, toolAction: String = "read it") throws -> OpenedStore {
        let url = URL(fileURLWithPath: path)
        let detected = try StoreBackend.detect(at: url)
        let backend = backend ?? detected
        let writesBesideTheApp = access == .writing && backend.sharesOpenStores
        if (access.changesStore && !writesBesideTheApp) || backend == .leveldb {
            try backend.refuseIfOpenElsewhere(url, toolAction: toolAction)
        }
        let forWriting = access == .writing
        let storage = backend.makeStore(at: url, verifying: verifying)
        guard let reading = storage as? any ReadOnlyOpening else {
            throw StoreToolError("a \(backend.rawValue) store cannot be opened for reading only")
        }
        do {
            let metadata = try reading.openForReading(schema: probe)
            storage.close()
            let schema = try metadata.recordedSchema(store: path)
            if let schema {
                if forWriting {
                    _ = try storage.open(schema: schema)
                } else {
                    _ = try reading.openForReading(schema: schema)
                }
            }
            return OpenedStore(url: url, backend: backend, storage: storage, metadata: metadata, schema: schema)
        } catch {
            storage.close()
            throw StoreToolError("cannot open \(path) as a \(backend.rawValue) store: \(error)")
        }
    }

    /// The recorded schema, or an error that says how to get one recorded.
    func requireSchema() throws -> StoreSchema {
        guard let schema else {
            throw StoreToolError("\(url.path) has no recorded schema (model version '\(metadata.modelVersion)'): it was written before stores kept their schema; add it to a DataStack once with this version of CoreStore, which records it")
        }
        return schema
    }

    /// Runs `body` on one snapshot of the store.
    func read<T>(_ body: (any StorageReader) throws -> T) throws -> T {
        do {
            return try storage.read(body)
        } catch let error as StoreToolError {
            throw error
        } catch {
            throw StoreToolError("reading \(url.path) failed: \(error)")
        }
    }

    /// The concrete (non-abstract) entities of `name` and its sub-entities, or of every entity
    /// when `name` is `nil`, parents first. Throws when the schema has no entity `name`.
    func concreteEntities(_ name: String?) throws -> [EntityDescription] {
        let schema = try requireSchema()
        guard let name else { return schema.entities.filter { !$0.isAbstract } }
        guard schema.entity(named: name) != nil else {
            throw StoreToolError("\(url.path) has no entity '\(name)'; it has \(schema.entities.map(\.name).joined(separator: ", "))")
        }
        return schema.entityAndDescendants(name).compactMap(schema.entity(named:)).filter { !$0.isAbstract }
    }
}
