import Foundation
import CoreStoreStorage
import CoreStoreConformance
import CoreStoreInMemory
import CoreStoreSQLite
import CoreStoreKeyValue
import CoreStoreLMDB
import CoreStoreLevelDB

/// A fresh directory under the system's temporary directory, removed by `cleanUp`.
struct TemporaryDirectory: Sendable {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("corestore-differential-\(UUID().uuidString)", isDirectory: true)

    func fresh(_ name: String) -> URL {
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.appendingPathComponent("\(name)-\(UUID().uuidString)")
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

struct InMemoryFactory: StorageFactory {
    let name = "InMemoryStore"
    func makeStorage(configuration: String?) throws -> any StorageInterface { InMemoryStore(configuration: configuration) }
    func reopen(_ storage: any StorageInterface) throws -> any StorageInterface { storage }
}

struct SQLiteFactory: StorageFactory {
    let name = "SQLiteStore"
    let directory = TemporaryDirectory()
    func makeStorage(configuration: String?) throws -> any StorageInterface {
        SQLiteStore(fileURL: directory.fresh("store").appendingPathExtension("sqlite"), configuration: configuration, durability: .normal)
    }
    func reopen(_ storage: any StorageInterface) throws -> any StorageInterface { storage }
    func cleanUp() { directory.remove() }
}

struct MemoryKeyValueFactory: StorageFactory {
    let name = "KeyValueStorage<MemoryKeyValueStore>"
    func makeStorage(configuration: String?) throws -> any StorageInterface {
        KeyValueStorage(engine: MemoryKeyValueStore(), configuration: configuration)
    }
    func reopen(_ storage: any StorageInterface) throws -> any StorageInterface { storage }
}

struct LMDBFactory: StorageFactory {
    let name = "LMDBStore"
    let directory = TemporaryDirectory()
    func makeStorage(configuration: String?) throws -> any StorageInterface {
        LMDBStore(fileURL: directory.fresh("lmdb"), configuration: configuration, durability: .normal)
    }
    func reopen(_ storage: any StorageInterface) throws -> any StorageInterface { storage }
    func cleanUp() { directory.remove() }
}

struct LevelDBFactory: StorageFactory {
    let name = "LevelDBStore"
    let directory = TemporaryDirectory()
    func makeStorage(configuration: String?) throws -> any StorageInterface {
        LevelDBStore(fileURL: directory.fresh("leveldb"), configuration: configuration, durability: .normal)
    }
    func reopen(_ storage: any StorageInterface) throws -> any StorageInterface { storage }
    func cleanUp() { directory.remove() }
}

/// `InMemoryStore` with a planted bug: every fetch with sort keys loses its last record.
final class DropsLastSortedRecordStore: StorageInterface {
    let inner = InMemoryStore()
    var configuration: String? { inner.configuration }
    var capabilities: StorageCapabilities { inner.capabilities }
    var storeDescription: String { "DropsLastSortedRecordStore" }
    func open(schema: StoreSchema) throws -> StoredMetadata? { try inner.open(schema: schema) }
    func read<T>(_ body: (any StorageReader) throws -> T) throws -> T {
        try inner.read { try body(Reader(inner: $0)) }
    }
    func write(_ changes: ChangeSet) throws -> CommitInfo { try inner.write(changes) }
    func erase() throws { try inner.erase() }
    func close() { inner.close() }

    struct Reader: StorageReader {
        let inner: any StorageReader
        func records(_ ids: [RecordID]) throws -> [Record?] { try inner.records(ids) }
        func fetch(_ request: FetchRequest) throws -> FetchResult {
            var result = try inner.fetch(request)
            if !request.sortDescriptors.isEmpty, result.pending.isEmpty, !result.records.isEmpty { result.records.removeLast() }
            return result
        }
        func count(_ request: FetchRequest) throws -> Int { try inner.count(request) }
        func aggregate(_ request: AggregateRequest, schema: StoreSchema) throws -> [[Value]] { try inner.aggregate(request, schema: schema) }
    }
}

struct BrokenFactory: StorageFactory {
    let name = "DropsLastSortedRecordStore"
    func makeStorage(configuration: String?) throws -> any StorageInterface { DropsLastSortedRecordStore() }
    func reopen(_ storage: any StorageInterface) throws -> any StorageInterface { storage }
}
