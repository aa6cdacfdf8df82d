import Foundation
import Testing
@testable import CoreStore

/// Counts publisher callbacks.
final class CallbackCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var _count = 0
    var count: Int { lock.withLock { _count } }
    func hit() { lock.withLock { _count += 1 } }
}

@Suite("Publishers")
struct PublisherTests {
    @Test(arguments: StoreKind.allCases)
    func aListPublisherPublishesOncePerChangingCommit(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("Ann", 30), ("Bob", 40)])
        let clauses = From<Person>().where(\.$age >= 30).orderBy(.ascending(\.$name))
        let publisher = try stack.publishList(clauses, deliveryQueue: makeDeliveryQueue())
        let counter = CallbackCounter()
        var initial: ListSnapshot<Person>?
        publisher.addObserver(counter, notifyInitial: true) { publisher in
            if initial == nil { initial = publisher.snapshot }
            counter.hit()
        }
        #expect(counter.count == 1)
        #expect(initial?.itemIDs == (try stack.fetchAll(clauses)).compactMap { $0.cs_id() })

        try insertPeople(stack, [("Cid", 35), ("Kid", 5)])
        try stack.perform(synchronous: { t in t.create(Into<Cat>()).name = "Tom" })
        try stack.perform(synchronous: { t in
            for p in try t.fetchAll(From<Person>().where(\.$name == "Ann")) { p.age = 30 }
        })
        #expect(counter.count == 2)
        let snapshot = publisher.snapshot
        #expect(snapshot.itemIDs == (try stack.fetchAll(clauses)).compactMap { $0.cs_id() })
        #expect(snapshot.count == 3 && snapshot.numberOfSections == 1 && snapshot.sectionIDs == [nil])
        #expect(snapshot.map { $0.snapshot?.$name } == ["Ann", "Bob", "Cid"])
        #expect(snapshot[IndexPath(item: 2, section: 0)]?.object?.name == "Cid")
        #expect(snapshot[IndexPath(item: 3, section: 0)] == nil)
        #expect(snapshot.indexPath(ofItemID: try #require(snapshot.itemIDs.last)) == IndexPath(item: 2, section: 0))

        publisher.removeObserver(counter)
        try insertPeople(stack, [("Dan", 50)])
        #expect(counter.count == 2)
        #expect(publisher.snapshot.count == 4)
    }

    @Test func sectionedSnapshotsCarrySectionIdentifiersAndTitles() throws {
        let stack = try makeStack(.sqlite)
        try insertPeople(stack, [("Ann", 30), ("Bob", 40), ("Cid", 30)])
        let publisher = try stack.publishList(
            From<Person>().sectionBy(\.$age, sectionIndexTransformer: { $0.map { "age \($0)" } }).orderBy(.ascending(\.$age), .ascending(\.$name)),
            deliveryQueue: makeDeliveryQueue()
        )
        let snapshot = publisher.snapshot
        #expect(snapshot.sectionIDs == ["30", "40"])
        #expect(snapshot.sections.map(\.indexTitle) == ["age 30", "age 40"])
        #expect(snapshot.itemIDs(inSectionAt: 0).count == 2 && snapshot.itemIDs(inSectionAt: 5).isEmpty)
        #expect(snapshot.map { $0.snapshot?.$name } == ["Ann", "Cid", "Bob"])
    }

    @Test(arguments: StoreKind.allCases)
    func anObjectPublisherAndItsSnapshots(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try stack.perform(synchronous: { t in
            let ann = t.create(Into<Person>())
            ann.name = "Ann"
            ann.tags = ["a", "b"]
            let dog = t.create(Into<Dog>())
            dog.name = "Rex"
            dog.master = ann
        })
        let ann = try #require(try stack.fetchOne(From<Person>()))
        let publisher = stack.publishObject(ann, deliveryQueue: makeDeliveryQueue())
        let counter = CallbackCounter()
        publisher.addObserver(counter) { _ in counter.hit() }
        let before = try #require(publisher.snapshot)
        #expect(before.$name == "Ann" && before.$age == 0 && before.$nickname == nil && before.$tags == ["a", "b"])
        #expect(before.$pets.compactMap { $0.snapshot?.$name } == ["Rex"])
        let rex = try #require(before.$pets.first?.snapshot)
        #expect(rex.$master?.objectID == ann.cs_id())

        try stack.perform(synchronous: { t in t.edit(ann)?.age = 7 })
        try stack.perform(synchronous: { t in t.edit(ann)?.age = 7 })
        #expect(counter.count == 1)
        let after = try #require(publisher.snapshot)
        #expect(after.$age == 7 && after != before && before.$age == 0)
        try stack.perform(synchronous: { t in if let a = t.edit(ann) { t.delete(a) } })
        #expect(counter.count == 2)
        #expect(publisher.snapshot == nil && publisher.object == nil)
        #expect(ann.asPublisher(in: stack) == publisher)
    }

    @Test func snapshotSequencesStartWithTheCurrentValueAndFollowCommits() async throws {
        let stack = try makeStack(.inMemory)
        try insertPeople(stack, [("Ann", 1)])
        let publisher = try stack.publishList(From<Person>().orderBy(.ascending(\.$name)), deliveryQueue: makeDeliveryQueue())
        var iterator = publisher.snapshots.makeAsyncIterator()
        #expect(await iterator.next()?.count == 1)
        try insertPeople(stack, [("Bob", 2)])
        #expect(await iterator.next()?.count == 2)

        let ann = try #require(try stack.fetchOne(From<Person>().where(\.$name == "Ann")))
        let objectPublisher = stack.publishObject(ann, deliveryQueue: makeDeliveryQueue())
        let stream = objectPublisher.snapshots
        try stack.perform(synchronous: { t in t.edit(ann)?.name = "Anna" })
        try stack.perform(synchronous: { t in if let a = t.edit(ann) { t.delete(a) } })
        var names: [String?] = []
        for await snapshot in stream { names.append(snapshot?.$name) }
        #expect(names == ["Ann", "Anna", nil])
    }

    @Test(arguments: StoreKind.allCases)
    func listPublisherChangesFollowCommitsAfterTheSnapshot(_ kind: StoreKind) async throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("Bob", 2)])
        let publisher = try stack.publishList(From<Person>().orderBy(.ascending(\.$name)), deliveryQueue: makeDeliveryQueue())
        var iterator = publisher.changes.makeAsyncIterator()
        try insertPeople(stack, [("Ann", 1)])
        let inserted = try #require(await iterator.next())
        #expect(inserted.insertedObjects.map(\.indexPath) == [IndexPath(item: 0, section: 0)])
        #expect(publisher.snapshot.count == 2)
        try stack.perform(synchronous: { t in t.delete(try t.fetchAll(From<Person>().where(\.$name == "Bob"))) })
        let deleted = try #require(await iterator.next())
        #expect(deleted.deletedObjects.map(\.indexPath) == [IndexPath(item: 1, section: 0)])
        try publisher.refetch(OrderBy<Person>(.descending(\.$name)))
        #expect(await iterator.next()?.isRefetch == true)
    }

    @Test(arguments: StoreKind.allCases)
    func objectPublisherChangesNameTheKeysAndEndAtDeletion(_ kind: StoreKind) async throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("Ann", 1)])
        let ann = try #require(try stack.fetchOne(From<Person>().where(\.$name == "Ann")))
        let publisher = stack.publishObject(ann, deliveryQueue: makeDeliveryQueue())
        let stream = publisher.changes
        try stack.perform(synchronous: { t in t.edit(ann)?.age = 5 })
        try stack.perform(synchronous: { t in if let a = t.edit(ann) { t.delete(a) } })
        var seen: [ObjectChange] = []
        for await change in stream { seen.append(change) }
        #expect(seen == [.updated(changedPersistentKeys: ["age"]), .deleted])
        // A deleted object's sequence ends at once.
        var after: [ObjectChange] = []
        for await change in publisher.changes { after.append(change) }
        #expect(after.isEmpty)
    }

    @Test func aPublisherThatGoesAwayEndsItsSequences() async throws {
        let stack = try makeStack(.inMemory)
        var publisher: ListPublisher<Person>? = try stack.publishList(From<Person>().orderBy(.ascending(\.$name)), deliveryQueue: makeDeliveryQueue())
        let changes = try #require(publisher).changes
        let snapshots = try #require(publisher).snapshots
        publisher = nil
        var count = 0
        for await _ in changes { count += 1 }
        for await _ in snapshots { count += 1 }
        #expect(count == 1)
    }
}
