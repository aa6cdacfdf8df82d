import Foundation
import Testing
@testable import CoreStore
import CoreStoreKeyValue

/// A list filtered through a relationship reads the listed records a changed related record
/// points at. When that read fails, the monitor reads its whole list again rather than keep a
/// list the commit made wrong.
@Suite("List monitors and failed reads", .serialized)
struct ListMonitorReadFailureTests {
    /// A stack of Ann and her dog Fido on a memory engine that can fail, a list of people on it
    /// (through the dogs' names with `throughPets`, by the person's own name otherwise), and
    /// Fido renamed Rex; returns how many reads the engine ran from the rename on, and what the
    /// list showed after it.
    static func rename(throughPets: Bool, failingReadAfter: Int?) throws -> (reads: Int, listed: [String]) {
        let faulty = FaultInjectingKeyValueStore(base: AnyEngine(MemoryKeyValueStore()))
        let stack = DataStack(makeSchema())
        try stack.addStorageAndWait(KeyValueStorage(engine: faulty))
        try insertAnnAndFido(stack)
        let queue = makeDeliveryQueue()
        let from = throughPets ? From<Person>().where((\Person.$pets ~ \.$name).any() == "Rex") : From<Person>().where(\.$name == "Rex")
        let monitor = try stack.monitorList(from.orderBy(.ascending(\.$name)), deliveryQueue: queue)
        faulty.resetCounts()
        if let failingReadAfter { faulty.failNext(.read, after: failingReadAfter) }
        try stack.perform(synchronous: { t in
            for dog in try t.fetchAll(From<Dog>()) { dog.name = "Rex" }
        })
        queue.sync {}
        return (faulty.count(of: .read), monitor.objectsInAllSections().map(\.name))
    }

    @Test func aListWhoseReadFailsDuringACommitIsReadWholeAgain() throws {
        // The same commit beside a list that reads nothing for it: the reads that come before
        // the filtered list's own.
        let commitReads = try Self.rename(throughPets: false, failingReadAfter: nil).reads
        let unfailed = try Self.rename(throughPets: true, failingReadAfter: nil)
        #expect(unfailed.listed == ["Ann"])
        #expect(unfailed.reads > commitReads, "the filtered list reads Ann's record")
        let failed = try Self.rename(throughPets: true, failingReadAfter: commitReads)
        #expect(failed.listed == ["Ann"], "the list's first read failed; it was read whole again")
    }
}
