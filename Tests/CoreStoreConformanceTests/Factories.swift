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

/// What a deliberately broken backend gets wrong.
enum Fault: String, Sendable, CaseIterable {
    /// Sorted fetches come back reversed.
    case reversedSorts
    /// The last insert of every commit is dropped (its permanent identifier is still returned).
    case droppedLastInsert
    /// Predicates are ignored while claiming to be applied.
    case ignoredPredicates
    /// A failing write leaves its inserts behind.
    case nonAtomicWrites
}

/// A deliberately broken backend: an `InMemoryStore` with one ``Fault``.
final class BrokenStore: StorageInterface {
    let fault: Fault
    let base = InMemoryStore()
    init(fault: Fault) { self.fault = fault }
    var configuration: String? { base.configuration }
    var capabilities: StorageCapabilities { base.capabilities }
    var storeDescription: String { "BrokenStore(\(fault))" }
    func open(schema: StoreSchema) throws -> StoredMetadata? {
        try base.open(schema: schema)
    }
    func read<T>(_ body: (any StorageReader) throws -> T) throws -> T {
        try base.read { try body(BrokenReader(base: $0, fault: fault)) }
    }
    func write(_ changes: ChangeSet) throws -> CommitInfo {
        switch fault {
        case .droppedLastInsert where !changes.inserts.isEmpty:
            var info = try base.write(changes)
            var dropped = changes
            let last = dropped.inserts.removeLast()
            if let id = info.permanentIDs[last.id] { _ = try base.write(ChangeSet(deletes: [id])); info.permanentIDs[last.id] = id }
            return info
        case .nonAtomicWrites:
            do {
                return try base.write(changes)
            } catch {
                _ = try? base.write(ChangeSet(inserts: changes.inserts))
                throw error
            }
        default:
            return try base.write(changes)
        }
    }
    func erase() throws { try base.erase() }
    func close() { base.close() }
}

struct BrokenReader: StorageReader {
    let base: any StorageReader
    let fault: Fault
    func records(_ ids: [RecordID]) throws -> [Record?] { try base.records(ids) }
    func count(_ request: FetchRequest) throws -> Int { try base.count(request) }
    func fetch(_ request: FetchRequest) throws -> FetchResult {
        var request = request
        if fault == .ignoredPredicates { request.predicate = nil }
        var result = try base.fetch(request)
        if fault == .reversedSorts && !request.sortDescriptors.isEmpty && result.pending.isEmpty { result.records.reverse() }
        return result
    }
}

struct BrokenFactory: StorageFactory {
    let fault: Fault
    var name: String { "BrokenStore(\(fault))" }
    func makeStorage(configuration: String?) throws -> any StorageInterface { BrokenStore(fault: fault) }
    func reopen(_ storage: any StorageInterface) throws -> any StorageInterface { throw UnexpectedStore() }
}
