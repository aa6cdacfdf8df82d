import Foundation
import CoreStore
import CoreStoreStorage
import CoreStoreConformance
import CoreStoreFirstPartyFactories

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
    /// A fetch told of known records answers every record by identifier alone, known or not.
    case valuesOmittedForUnknownRecords
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
        if fault == .valuesOmittedForUnknownRecords && !request.knownRecords.isEmpty {
            result.records = result.records.map { Record(identifierOnly: $0.id) }
        }
        return result
    }
}

struct BrokenFactory: StorageFactory {
    let fault: Fault
    var name: String { "BrokenStore(\(fault))" }
    func makeStorage(configuration: String?) throws -> any StorageInterface { BrokenStore(fault: fault) }
    func reopen(_ storage: any StorageInterface) throws -> any StorageInterface { throw UnexpectedStore() }
}
