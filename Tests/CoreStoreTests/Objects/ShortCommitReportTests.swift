import Foundation
import Testing
@testable import CoreStore
import CoreStoreStorage
import CoreStoreInMemory

/// A store whose commits report only their sequence and permanent identifiers, not the records
/// they wrote (`CommitInfo.changes` left empty, short of the contract): the objects and the
/// monitors still follow its commits.
@Suite("Stores that report no written records")
struct ShortCommitReportTests {
    /// Ann and her dog Fido inserted in one unsafe transaction: after the commit both have
    /// permanent identifiers, Fido's master is Ann, and a list of people shows her.
    @Test func insertsReportedShortAreTakenFromTheChangeSet() throws {
        let stack = DataStack(makeSchema())
        try stack.addStorageAndWait(ReportlessStore())
        let queue = makeDeliveryQueue()
        let people = try stack.monitorList(From<Person>().orderBy(.ascending(\.$name)), deliveryQueue: queue)
        let transaction = stack.beginUnsafe()
        let (ann, fido) = createAnnAndFido(in: transaction)
        try transaction.commitAndWait()
        queue.sync {}
        #expect(ann.cs_id()?.isTemporary == false)
        #expect(fido.cs_id()?.isTemporary == false)
        #expect(fido.master?.name == "Ann", "Fido's master still named a temporary identifier")
        #expect(people.objectsInAllSections().map(\.name) == ["Ann"], "the list did not see the insert")
        let stored = try #require(try stack.fetchOne(From<Dog>()))
        #expect(stored.master?.cs_id() == ann.cs_id())
        fido.name = "Rex"
        try transaction.commitAndWait()
        #expect(try stack.fetchOne(From<Dog>())?.name == "Rex")
    }

    /// Two unsafe transactions change different fields of Ann: the stack's Ann shows both, as
    /// stored (the records are read back, not taken from each transaction's own version).
    @Test func updatesReportedShortAreReadBack() throws {
        let stack = DataStack(makeSchema())
        try stack.addStorageAndWait(ReportlessStore())
        try insertPeople(stack, [("Ann", 30)])
        let held = try #require(try stack.fetchOne(From<Person>()))
        let first = stack.beginUnsafe(), second = stack.beginUnsafe()
        let firstAnn = try #require(try first.fetchOne(From<Person>()))
        let secondAnn = try #require(try second.fetchOne(From<Person>()))
        firstAnn.name = "Annie"
        try first.commitAndWait()
        secondAnn.age = 31
        try second.commitAndWait()
        #expect(held.name == "Annie", "the second commit's own version put back the name it started from")
        #expect(held.age == 31)
    }

    /// Records deleted by a filter (cats have no relationships, so none is read) leave a list.
    @Test func deletesReportedShortLeaveLists() throws {
        let stack = DataStack(makeSchema())
        try stack.addStorageAndWait(ReportlessStore())
        try stack.perform(synchronous: { t in
            for name in ["Tom", "Kit"] { t.create(Into<Cat>()).name = name }
        })
        let queue = makeDeliveryQueue()
        let cats = try stack.monitorList(From<Cat>().orderBy(.ascending(\.$name)), deliveryQueue: queue)
        try stack.perform(synchronous: { t in _ = try t.deleteAll(From<Cat>().where(\.$name == "Tom")) })
        queue.sync {}
        #expect(cats.objectsInAllSections().map(\.name) == ["Kit"])
    }
}

/// An in-memory store that leaves out what its commits wrote (`CommitInfo.changes`).
final class ReportlessStore: StorageInterface, @unchecked Sendable {
    let base = InMemoryStore()

    var configuration: String? { base.configuration }
    var capabilities: StorageCapabilities { base.capabilities }
    var storeDescription: String { "ReportlessStore" }
    func open(schema: StoreSchema) throws -> StoredMetadata? { try base.open(schema: schema) }
    func read<T>(_ body: (any StorageReader) throws -> T) throws -> T { try base.read(body) }
    func write(_ changes: ChangeSet) throws -> CommitInfo {
        let info = try base.write(changes)
        return CommitInfo(sequence: info.sequence, permanentIDs: info.permanentIDs)
    }
    func erase() throws { try base.erase() }
    func close() { base.close() }
}
