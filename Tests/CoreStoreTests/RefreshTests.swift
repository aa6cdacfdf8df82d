import Foundation
import Testing
@testable import CoreStore

/// `refreshAndMergeAllObjects()` on transactions and on the stack.
@Suite("Refreshing objects from storage")
struct RefreshTests {
    /// Writes to the stack's stores the way another writer would: the stack's objects and
    /// monitors hear nothing of it.
    func writeBehindTheStack(_ stack: DataStack, _ body: (UnsafeDataTransaction) throws -> Void) throws {
        let transaction = stack.beginUnsafe()
        try body(transaction)
        for part in try transaction.context.prepareCommit() {
            _ = try stack.gateway.write(part.changes, to: part.store)
        }
    }

    func person(_ source: some FetchableSource, _ name: String) throws -> Person? {
        try source.fetchOne(From<Person>().where(\.$name == name))
    }

    @Test(arguments: StoreKind.allCases)
    func aTransactionTakesOtherCommitsAndKeepsItsOwnChanges(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("Ann", 30), ("Bob", 40), ("Cid", 50)])
        let transaction = stack.beginUnsafe()
        let ann = try #require(try person(transaction, "Ann"))
        let bob = try #require(try person(transaction, "Bob"))
        let cid = try #require(try person(transaction, "Cid"))
        ann.nickname = "A"
        try stack.perform(synchronous: { t in
            try person(t, "Ann")?.age = 31
            try person(t, "Ann")?.nickname = "other"
            try person(t, "Bob")?.age = 41
            t.delete(try person(t, "Cid"))
        })
        #expect(ann.age == 30 && bob.age == 40 && !cid.cs_isDeleted())
        try transaction.refreshAndMergeAllObjects()
        #expect(ann.age == 31)
        #expect(ann.nickname == "A")
        #expect(bob.age == 41)
        #expect(cid.cs_isDeleted())
        #expect(try transaction.fetchCount(From<Person>()) == 2)
        // Its own change is still pending and commits over the other one.
        #expect(transaction.updatedObjects(Person.self).map(\.name) == ["Ann"])
        try transaction.commitAndWait()
        let stored = try #require(try person(stack, "Ann"))
        #expect(stored.age == 31 && stored.nickname == "A")
        #expect(try person(stack, "Bob")?.age == 41)
    }

    @Test(arguments: StoreKind.allCases)
    func aTransactionWithNothingNewChangesNothing(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("Ann", 30)])
        let transaction = stack.beginUnsafe()
        let ann = try #require(try person(transaction, "Ann"))
        ann.age = 35
        try transaction.refreshAndMergeAllObjects()
        #expect(ann.age == 35)
        #expect(transaction.hasChanges)
        try transaction.commitAndWait()
        #expect(try person(stack, "Ann")?.age == 35)
    }

    @Test(arguments: StoreKind.allCases)
    func theStackReadsWhatWasWrittenBehindItAndTellsItsMonitors(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("Ann", 30), ("Bob", 40)])
        let ann = try #require(try person(stack, "Ann"))
        let list = try stack.monitorList(From<Person>().orderBy(.ascending(\.$name)), deliveryQueue: makeDeliveryQueue())
        let listRecorder = ListRecorder<Person> { "\($0.name) \($0.age)" }
        list.addObserver(listRecorder)
        let objectMonitor = try stack.monitorObject(ann, deliveryQueue: makeDeliveryQueue())
        let objectRecorder = ObjectRecorder<Person> { "\($0.name) \($0.age)" }
        objectMonitor.addObserver(objectRecorder)

        try writeBehindTheStack(stack) { t in
            try person(t, "Ann")?.age = 99
            t.delete(try person(t, "Bob"))
            let dan = t.create(Into<Person>())
            dan.name = "Dan"
            dan.age = 20
        }
        #expect(ann.age == 30)
        #expect(listRecorder.events.isEmpty && objectRecorder.events.isEmpty)

        try stack.refreshAndMergeAllObjects()
        #expect(ann.age == 99)
        #expect(objectRecorder.events == ["willUpdate Ann 99", "didUpdate Ann 99 [\"age\"]"])
        // The stack never held Bob: the deleted instance shows what the list knew (his name,
        // its sort key), his other fields at their initial values.
        #expect(listRecorder.events == ["willChange", "delete Bob 0 [0,1]", "insert Dan 20 [0,1]", "update Ann 99 [0,0]", "didChange"])
        #expect(sectionNames(list) == [["Ann", "Dan"]])

        // Nothing new: nothing to tell.
        try stack.refreshAndMergeAllObjects()
        #expect(objectRecorder.events.count == 2)
        #expect(listRecorder.events.count == 5)
    }

    @Test(arguments: StoreKind.allCases)
    func anObjectGoneFromStorageIsDeletedInTheStack(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("Ann", 30)])
        let ann = try #require(try person(stack, "Ann"))
        let monitor = try stack.monitorObject(ann, deliveryQueue: makeDeliveryQueue())
        let recorder = ObjectRecorder<Person> { $0.name }
        monitor.addObserver(recorder)
        try writeBehindTheStack(stack) { t in t.delete(try person(t, "Ann")) }
        try stack.refreshAndMergeAllObjects()
        #expect(ann.cs_isDeleted())
        #expect(monitor.isObjectDeleted)
        #expect(recorder.events == ["didDelete Ann"])
        #expect(stack.fetchExisting(ann) == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func aReadUnderWayDuringARefreshMakesNoObjectForWhatTheRefreshFoundGone(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("Ann", 30), ("Bob", 40)])
        let ann = try #require(try person(stack, "Ann"))
        let bob = try #require(try person(stack, "Bob"))
        let context = stack.mainContext
        let store = try #require(ann.cs_state?.store)
        // A read of the stack that has taken its records from storage but not registered them.
        let ticket = context.lock.withLock { context.beginRead() }
        let read = try stack.gateway.read(store) { try $0.records([ann.cs_state!.recordID, bob.cs_state!.recordID]) }.compactMap { $0 }
        #expect(read.count == 2)
        try writeBehindTheStack(stack) { t in
            t.delete(try person(t, "Ann"))
            try person(t, "Bob")?.age = 41
        }
        try stack.refreshAndMergeAllObjects()
        #expect(ann.cs_isDeleted())
        // The read registers now: it finds no object for Ann and makes none from its old
        // record, and Bob's object is the one the refresh brought up to date.
        let registered = context.lock.withLock {
            defer { context.endRead(ticket) }
            return read.map { context.object(for: $0, in: store, readSince: ticket) }
        }
        #expect(registered[0] == nil)
        #expect(registered[1] === bob)
        #expect(bob.age == 41)
        #expect(try stack.fetchAll(From<Person>()).map(\.name) == ["Bob"])
        #expect(stack.fetchExisting(ann) == nil)
    }
}
