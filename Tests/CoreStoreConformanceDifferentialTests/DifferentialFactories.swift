import Foundation
import CoreStoreStorage
import CoreStoreConformance
import CoreStoreFirstPartyFactories
import CoreStoreInMemory
import CoreStoreSQLite
import CoreStoreKeyValue
import CoreStoreLMDB
import CoreStoreLevelDB


/// A bug planted in an otherwise correct store, which the runner must find.
enum PlantedBug: Sendable {
    /// Every fetch with sort keys loses its last record.
    case dropsLastSortedRecord
    /// Fetches ignore their offset.
    case ignoresOffset
    /// Updates are written whole: every key counts as changed (the lost update the merge rules prevent).
    case writesWholeRecords
    /// Updates lose their base: a changed to-many list replaces the stored one.
    case dropsBase
}

/// `InMemoryStore` with a ``PlantedBug``.
final class PlantedBugStore: StorageInterface {
    let inner = InMemoryStore()
    let bug: PlantedBug
    init(bug: PlantedBug) { self.bug = bug }
    var configuration: String? { inner.configuration }
    var capabilities: StorageCapabilities { inner.capabilities }
    var storeDescription: String { "PlantedBugStore(\(bug))" }
    func open(schema: StoreSchema) throws -> StoredMetadata? { try inner.open(schema: schema) }
    func read<T>(_ body: (any StorageReader) throws -> T) throws -> T {
        try inner.read { try body(Reader(inner: $0, bug: bug)) }
    }
    func write(_ changes: ChangeSet) throws -> CommitInfo {
        var changes = changes
        switch bug {
        case .writesWholeRecords:
            let schema = DifferentialSchema.schema
            changes.updates = changes.updates.map { update in
                guard let entity = schema.entity(named: update.record.id.entity) else { return update }
                return RecordUpdate(record: update.record, changedKeys: Set(entity.attributes.map(\.name) + entity.relationships.map(\.name)))
            }
        case .dropsBase:
            changes.updates = changes.updates.map { RecordUpdate(record: $0.record, changedKeys: $0.changedKeys) }
        case .dropsLastSortedRecord, .ignoresOffset:
            break
        }
        return try inner.write(changes)
    }
    func erase() throws { try inner.erase() }
    func close() { inner.close() }

    struct Reader: StorageReader {
        let inner: any StorageReader
        let bug: PlantedBug
        func records(_ ids: [RecordID]) throws -> [Record?] { try inner.records(ids) }
        func fetch(_ request: FetchRequest) throws -> FetchResult {
            switch bug {
            case .dropsLastSortedRecord:
                var result = try inner.fetch(request)
                if !request.sortDescriptors.isEmpty, result.pending.isEmpty, !result.records.isEmpty { result.records.removeLast() }
                return result
            case .ignoresOffset:
                var unwindowed = request
                unwindowed.offset = 0
                return try inner.fetch(unwindowed)
            case .writesWholeRecords, .dropsBase:
                return try inner.fetch(request)
            }
        }
        func count(_ request: FetchRequest) throws -> Int { try inner.count(request) }
        func aggregate(_ request: AggregateRequest, schema: StoreSchema) throws -> [[Value]] { try inner.aggregate(request, schema: schema) }
    }
}

struct BrokenFactory: StorageFactory {
    var bug = PlantedBug.dropsLastSortedRecord
    var name: String { "InMemoryStore with planted bug \(bug)" }
    func makeStorage(configuration: String?) throws -> any StorageInterface { PlantedBugStore(bug: bug) }
    func reopen(_ storage: any StorageInterface) throws -> any StorageInterface { storage }
}
