import Foundation
import Testing
@testable import CoreStore

/// `deleteAll` deletes records of entities without relationships without making their
/// objects; everything a transaction can ask must still see them as deleted.
@Suite("deleteAll")
struct DeleteAllTests {
    /// Cats (no relationships) "Tom" 1, "Kit" 2, "Max" 3 lives, and a dog "Rex".
    private func makeAnimals(_ kind: StoreKind) throws -> DataStack {
        let stack = try makeStack(kind)
        try stack.perform(synchronous: { t in
            createCats(t)
            t.create(Into<Dog>()).name = "Rex"
        })
        return stack
    }

    /// Cats "Tom" 1, "Kit" 2 and "Max" 3 lives.
    private func createCats(_ t: BaseDataTransaction) {
        for (name, lives) in [("Tom", 1), ("Kit", 2), ("Max", 3)] {
            let cat = t.create(Into<Cat>())
            cat.name = name
            cat.lives = lives
        }
    }

    private func catNames(_ source: some FetchableSource) throws -> [String] {
        try source.fetchAll(From<Cat>().orderBy(.ascending(\.$name))).map(\.name)
    }

    @Test(arguments: StoreKind.allCases)
    func theTransactionSeesTheRecordsDeleted(_ kind: StoreKind) throws {
        let stack = try makeAnimals(kind)
        let kit = try #require(try stack.fetchOne(From<Cat>().where(\.$name == "Kit")))
        let kitID = try #require(kit.cs_id())
        do {
            let t = stack.beginUnsafe()
            #expect(try t.deleteAll(From<Cat>().where(\.$lives >= 2)) == 2)
            #expect(t.hasChanges)
            #expect(try catNames(t) == ["Tom"])
            #expect(try t.fetchCount(From<Cat>()) == 1)
            #expect(try t.fetchCount(From<Animal>()) == 2)
            #expect(try t.fetchObjectIDs(From<Cat>()).count == 1)
            #expect(try t.queryValue(From<Cat>().select(Int.self, .sum(\.$lives))) == 1)
            #expect(t.fetchExisting(kitID) as Cat? == nil)
            #expect(t.edit(kit) == nil)
            // Deleting again deletes nothing more.
            #expect(try t.deleteAll(From<Cat>().where(\.$lives >= 2)) == 0)
            #expect(t.delete(kit) == 0)
            try t.commitAndWait()
        }
        #expect(try catNames(stack) == ["Tom"])
        #expect(kit.cs_isDeleted())
        #expect(try stack.fetchCount(From<Dog>()) == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func deletedObjectsListsTheRecordsDeleted(_ kind: StoreKind) throws {
        let stack = try makeAnimals(kind)
        do {
            let t = stack.beginUnsafe()
            _ = try t.deleteAll(From<Cat>().where(\.$lives <= 2))
            let deleted = t.deletedObjects(Cat.self)
            #expect(Set(deleted.map(\.name)) == ["Tom", "Kit"])
            #expect(deleted.allSatisfy { $0.cs_isDeleted() })
            #expect(t.deletedObjectIDs().count == 2)
            // Once made, they are this transaction's deleted objects like any other.
            #expect(try catNames(t) == ["Max"])
            #expect(try t.deleteAll(From<Cat>()) == 1)
            try t.commitAndWait()
        }
        #expect(try stack.fetchCount(From<Cat>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func objectsAndRecordsAreDeletedTogether(_ kind: StoreKind) throws {
        let stack = try makeAnimals(kind)
        try stack.perform(synchronous: { t in
            let owner = t.create(Into<Person>())
            owner.name = "Ann"
            let rex = try #require(try t.fetchOne(From<Dog>()))
            rex.master = owner
        })
        do {
            let t = stack.beginUnsafe()
            // A cat this transaction holds and changed, one it holds, and records only; a dog
            // (relationships: an object, with its inverse kept in step).
            let tom = try #require(try t.fetchOne(From<Cat>().where(\.$name == "Tom")))
            tom.lives = 7
            _ = try t.fetchOne(From<Cat>().where(\.$name == "Kit"))
            #expect(try t.deleteAll(From<Animal>()) == 4)
            #expect(tom.cs_isDeleted())
            #expect(try t.fetchCount(From<Animal>()) == 0)
            #expect(try t.fetchOne(From<Person>())?.pets.isEmpty == true)
            try t.commitAndWait()
        }
        #expect(try stack.fetchCount(From<Animal>()) == 0)
        #expect(try stack.fetchOne(From<Person>())?.pets.isEmpty == true)
    }

    @Test(arguments: StoreKind.allCases)
    func pendingObjectsAreJudgedByTheirPendingValues(_ kind: StoreKind) throws {
        let stack = try makeAnimals(kind)
        do {
            let t = stack.beginUnsafe()
            let tom = try #require(try t.fetchOne(From<Cat>().where(\.$name == "Tom")))
            tom.lives = 5
            let new = t.create(Into<Cat>())
            new.name = "Ivy"
            new.lives = 6
            // Tom now matches, Kit (2) does not, Max (3) and the new cat do.
            #expect(try t.deleteAll(From<Cat>().where(\.$lives >= 3)) == 3)
            #expect(try catNames(t) == ["Kit"])
            try t.commitAndWait()
        }
        #expect(try catNames(stack) == ["Kit"])
    }

    @Test(arguments: StoreKind.allCases)
    func rollbackAndUndoBringTheRecordsBack(_ kind: StoreKind) throws {
        let stack = try makeAnimals(kind)
        let t = stack.beginUnsafe()
        #expect(try t.deleteAll(From<Cat>()) == 3)
        #expect(try t.fetchCount(From<Cat>()) == 0)
        t.rollback()
        #expect(!t.hasChanges)
        #expect(try catNames(t) == ["Kit", "Max", "Tom"])
        #expect(try t.deleteAll(From<Cat>().where(\.$name == "Max")) == 1)
        try t.commitAndWait()
        #expect(try catNames(stack) == ["Kit", "Tom"])

        let undoable = stack.beginUnsafe(supportsUndo: true)
        #expect(try undoable.deleteAll(From<Cat>()) == 2)
        #expect(try undoable.fetchCount(From<Cat>()) == 0)
        undoable.undo()
        #expect(try catNames(undoable) == ["Kit", "Tom"])
        undoable.redo()
        #expect(try undoable.fetchCount(From<Cat>()) == 0)
        try undoable.commitAndWait()
        #expect(try stack.fetchCount(From<Cat>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func monitorsSeeTheDeletionWithTheLastValues(_ kind: StoreKind) throws {
        let stack = try makeAnimals(kind)
        let kit = try #require(try stack.fetchOne(From<Cat>().where(\.$name == "Kit")))
        let monitor = try stack.monitorObject(kit, deliveryQueue: makeDeliveryQueue())
        let recorder = ObjectRecorder<Cat> { "\($0.name)/\($0.lives)" }
        monitor.addObserver(recorder)
        try stack.perform(synchronous: { t in _ = try t.deleteAll(From<Cat>().where(\.$lives == 2)) })
        #expect(recorder.events == ["didDelete Kit/2"])
        #expect(monitor.isObjectDeleted)
    }

    /// A bulk delete of objects the stack held: the one the caller keeps reads as deleted with
    /// its last values, the others are freed by the commit's merge, and the survivor stays the
    /// same instance.
    @Test(arguments: StoreKind.allCases)
    func aBulkDeleteFreesTheObjectsNobodyHolds(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        let count = 2_000
        try stack.perform(synchronous: { t in
            for lives in 0..<count { t.create(Into<Cat>()).lives = lives }
        })
        weak var freed: Cat?
        let kept: Cat
        let survivor: Cat
        do {
            let all = try stack.fetchAll(From<Cat>().orderBy(.ascending(\.$lives)))
            #expect(all.count == count)
            freed = all[10]
            kept = all[11]
            survivor = all[count - 1]
        }
        #expect(freed != nil, "the stack holds what it fetched")
        let deleted = try stack.perform(synchronous: { t in try t.deleteAll(From<Cat>().where(\.$lives < count - 1)) })
        #expect(deleted == count - 1)
        #expect(freed == nil)
        #expect(kept.cs_isDeleted() && kept.lives == 11)
        #expect(!survivor.cs_isDeleted())
        #expect(try stack.fetchAll(From<Cat>()).map { $0 === survivor } == [true])
    }

    /// A stack that no monitor observes deletes the rows without reading them; another stack on
    /// the same file, whose monitors show the cats, still hears of every deletion and of the
    /// insert made in the same commit. (A SQLite file keeps no commit summaries: the other
    /// stack reads its list again. PostgreSQL's summaries are tested in
    /// `PostgresSharedStackTests`.)
    @Test func anotherStackHearsOfRowsDeletedUnread() throws {
        let url = try TestStoreFiles.newFile()
        let writer = try SharedStoreTests.stack(url)
        try writer.perform(synchronous: { t in createCats(t) })
        let watcher = try SharedStoreTests.stack(url)
        let kit = try #require(try watcher.fetchOne(From<Cat>().where(\.$name == "Kit")))
        let list = try watcher.monitorList(From<Cat>().orderBy(.ascending(\.$name)), deliveryQueue: makeDeliveryQueue())
        // A member the stack never held is handed over with what the list knew of it: its name.
        let listRecorder = ListRecorder<Cat> { $0.name }
        list.addObserver(listRecorder)
        let object = try watcher.monitorObject(kit, deliveryQueue: makeDeliveryQueue())
        let objectRecorder = ObjectRecorder<Cat> { "\($0.name)/\($0.lives)" }
        object.addObserver(objectRecorder)

        let deleted = try writer.perform(synchronous: { t in
            let deleted = try t.deleteAll(From<Cat>().where(\.$lives >= 2))
            let zed = t.create(Into<Cat>())
            zed.name = "Zed"
            zed.lives = 5
            return deleted
        })
        #expect(deleted == 2)
        try watcher.refreshFromSharedStores()
        list.delivery.flush()
        object.delivery.flush()
        #expect(objectRecorder.events == ["didDelete Kit/2"])
        #expect(listRecorder.events.first == "willChange" && listRecorder.events.last == "didChange")
        #expect(Set(listRecorder.events.dropFirst().dropLast()) == ["delete Kit [0,0]", "delete Max [0,1]", "insert Zed [0,1]"])
        #expect(try catNames(watcher) == ["Tom", "Zed"])
    }
}
