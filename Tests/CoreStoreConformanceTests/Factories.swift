import Foundation
import CoreStore
import CoreStoreStorage
import CoreStoreConformance
import CoreStoreSQLite
import CoreStoreKeyValue
import CoreStoreLMDB
import CoreStoreLevelDB

/// A directory of its own per factory, removed by `cleanUp()`.
struct TemporaryDirectory: Sendable {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("corestore-conformance-\(UUID().uuidString)", isDirectory: true)

    func newPath(_ pathExtension: String) throws -> URL {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.appendingPathComponent("\(UUID().uuidString).\(pathExtension)")
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

struct UnexpectedStore: Error {}

struct InMemoryFactory: StorageFactory {
    let name = "InMemoryStore"
    func makeStorage(configuration: String?) throws -> any StorageInterface { InMemoryStore(configuration: configuration) }
    func reopen(_ storage: any StorageInterface) throws -> any StorageInterface { throw UnexpectedStore() }
}

struct SQLiteFactory: StorageFactory {
    let durability: SQLiteStore.Durability
    let directory = TemporaryDirectory()
    var name: String { "SQLiteStore(\(durability))" }
    func makeStorage(configuration: String?) throws -> any StorageInterface {
        SQLiteStore(fileURL: try directory.newPath("sqlite"), configuration: configuration, durability: durability)
    }
    func reopen(_ storage: any StorageInterface) throws -> any StorageInterface {
        guard let store = storage as? SQLiteStore else { throw UnexpectedStore() }
        return SQLiteStore(fileURL: store.fileURL, configuration: store.configuration, durability: durability)
    }
    func cleanUp() { directory.remove() }
}

struct KeyValueFactory: StorageFactory {
    let name = "KeyValueStorage<MemoryKeyValueStore>"
    func makeStorage(configuration: String?) throws -> any StorageInterface {
        KeyValueStorage(engine: MemoryKeyValueStore(), configuration: configuration)
    }
    /// The same in-memory engine under a new storage instance (it keeps its bytes when closed).
    func reopen(_ storage: any StorageInterface) throws -> any StorageInterface {
        guard let store = storage as? KeyValueStorage<MemoryKeyValueStore> else { throw UnexpectedStore() }
        return KeyValueStorage(engine: store.engine, configuration: store.configuration)
    }
}

struct LMDBFactory: StorageFactory {
    let durability: CommitDurability
    let directory = TemporaryDirectory()
    var name: String { "LMDBStore(\(durability))" }
    func makeStorage(configuration: String?) throws -> any StorageInterface {
        LMDBStore(fileURL: try directory.newPath("lmdb"), configuration: configuration, durability: durability)
    }
    func reopen(_ storage: any StorageInterface) throws -> any StorageInterface {
        guard let store = storage as? LMDBStore else { throw UnexpectedStore() }
        return LMDBStore(fileURL: store.fileURL, configuration: store.configuration, durability: durability)
    }
    func cleanUp() { directory.remove() }
}

struct LevelDBFactory: StorageFactory {
    let durability: CommitDurability
    let directory = TemporaryDirectory()
    var name: String { "LevelDBStore(\(durability))" }
    func makeStorage(configuration: String?) throws -> any StorageInterface {
        LevelDBStore(fileURL: try directory.newPath("leveldb"), configuration: configuration, durability: durability)
    }
    func reopen(_ storage: any StorageInterface) throws -> any StorageInterface {
        guard let store = storage as? LevelDBStore else { throw UnexpectedStore() }
        return LevelDBStore(fileURL: store.fileURL, configuration: store.configuration, durability: durability)
    }
    func cleanUp() { directory.remove() }
}

/// A deliberately broken backend: an `InMemoryStore` whose sorted fetches come back reversed.
final class ReversingStore: StorageInterface {
    let base = InMemoryStore()
    var configuration: String? { base.configuration }
    var capabilities: StorageCapabilities { base.capabilities }
    var storeDescription: String { "ReversingStore" }
    func open(schema: StoreSchema) throws -> StoredMetadata? {
        try base.open(schema: schema)
    }
    func read<T>(_ body: (any StorageReader) throws -> T) throws -> T {
        try base.read { try body(ReversingReader(base: $0)) }
    }
    func write(_ changes: ChangeSet) throws -> CommitInfo { try base.write(changes) }
    func erase() throws { try base.erase() }
    func close() { base.close() }
}

struct ReversingReader: StorageReader {
    let base: any StorageReader
    func records(_ ids: [RecordID]) throws -> [Record?] { try base.records(ids) }
    func count(_ request: FetchRequest) throws -> Int { try base.count(request) }
    func fetch(_ request: FetchRequest) throws -> FetchResult {
        var result = try base.fetch(request)
        if !request.sortDescriptors.isEmpty && result.pending.isEmpty { result.records.reverse() }
        return result
    }
}

struct BrokenFactory: StorageFactory {
    let name = "ReversingStore"
    func makeStorage(configuration: String?) throws -> any StorageInterface { ReversingStore() }
    func reopen(_ storage: any StorageInterface) throws -> any StorageInterface { throw UnexpectedStore() }
}
