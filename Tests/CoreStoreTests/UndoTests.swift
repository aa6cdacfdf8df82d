import Foundation
import Testing
@testable import CoreStore
import CoreStoreKeyValue

/// `beginUnsafe(supportsUndo: true)` with `undo()`, `redo()` and `flush()`, as CoreStore spells
/// them, on every backend.
@Suite("Undo and redo in unsafe transactions")
struct UndoTests {
    private static func stackWithAnn(_ kind: StoreKind) throws -> (DataStack, Person) {
        let stack = try makeStack(kind)
        let ann = try stack.perform(synchronous: { t -> Person in
            let person = t.create(Into<Person>())
            person.name = "Ann"
            person.age = 30
            return person
        })
        return (stack, try #require(stack.fetchExisting(ann)))
    }

    @Test("Undo reverts the changes since the last flush, redo makes them again, and the commit saves what is left", arguments: StoreKind.allCases)
    func undoRedoCommit(kind: StoreKind) throws {
        let (stack, stored) = try Self.stackWithAnn(kind)
        let t = stack.beginUnsafe(supportsUndo: true)
        let ann = try #require(t.edit(stored))
        ann.age = 31
        t.flush()
        ann.age = 32
        ann.name = "Anne"
        let bob = t.create(Into<Person>())
        bob.name = "Bob"

        t.undo()
        #expect(ann.age == 31 && ann.name == "Ann", "the second group is reverted, the first is kept")
        #expect(t.insertedObjects().isEmpty && t.fetchExisting(bob) == nil, "Bob's insertion is undone")
        t.undo()
        #expect(ann.age == 30)
        #expect(!t.hasChanges)
        t.undo()
        #expect(ann.age == 30, "nothing more to undo")

        t.redo()
        #expect(ann.age == 31)
        t.redo()
        #expect(ann.age == 32 && ann.name == "Anne")
        #expect(t.insertedObjects().count == 1 && t.fetchExisting(bob) === bob)
        try t.commitAndWait()

        let people = try stack.fetchAll(From<Person>().orderBy(.ascending(\.$name)))
        #expect(people.map(\.name) == ["Anne", "Bob"])
        #expect(people.first?.age == 32)
    }

    @Test("Undoing a deletion brings the object back; a new change forgets what could be redone; a commit forgets the history", arguments: StoreKind.allCases)
    func deletionsAndHistory(kind: StoreKind) throws {
        let (stack, stored) = try Self.stackWithAnn(kind)
        let t = stack.beginUnsafe(supportsUndo: true)
        let ann = try #require(t.edit(stored))
        t.flush(closure: { t.delete(ann) })
        #expect(t.fetchExisting(ann) == nil)
        t.undo()
        #expect(t.fetchExisting(ann) === ann && t.deletedObjects().isEmpty)

        ann.age = 40
        t.undo()
        #expect(ann.age == 30)
        ann.age = 41
        t.redo()
        #expect(ann.age == 41, "the change after the undo forgot the redo")
        try t.commitAndWait()
        t.undo()
        #expect(ann.age == 41, "a commit forgets the history")
        #expect(try stack.fetchOne(From<Person>())?.age == 41)

        ann.age = 50
        t.rollback()
        t.redo()
        t.undo()
        #expect(ann.age == 41, "a rollback forgets the history")
    }

    @Test("Without supportsUndo, undo and redo do nothing")
    func withoutUndo() throws {
        let (stack, stored) = try Self.stackWithAnn(.inMemory)
        let t = stack.beginUnsafe()
        let ann = try #require(t.edit(stored))
        ann.age = 33
        t.flush()
        t.undo()
        #expect(ann.age == 33)
        try t.commitAndWait()
        #expect(try stack.fetchOne(From<Person>())?.age == 33)
    }

    @Test("Undoing a delete after its commit failed gives the other side of the relationship back")
    func undoAfterAFailedCommitRestoresTheInverse() throws {
        let faulty = FaultInjectingKeyValueStore(base: MemoryKeyValueStore())
        let stack = DataStack(makeSchema())
        try stack.addStorageAndWait(KeyValueStorage(engine: faulty))
        try insertAnnAndFido(stack)
        let t = stack.beginUnsafe(supportsUndo: true)
        let ann = try #require(try t.fetchOne(From<Person>()))
        let fido = try #require(try t.fetchOne(From<Dog>()))
        t.delete(fido)
        faulty.failNext(.commit)
        #expect(throws: CoreStoreError.self) { try t.commitAndWait() }
        // The failed commit took Fido out of Ann's pets (the inverse of his master) on its way.
        t.undo()
        #expect(!fido.cs_isDeleted())
        #expect(ann.pets.map(\.name) == ["Fido"])
        #expect(!t.hasChanges, "nothing is left pending")
        faulty.clearFaults()
        try t.commitAndWait()
        let stored = try #require(try stack.fetchOne(From<Person>()))
        #expect(stored.pets.map(\.name) == ["Fido"])
        #expect(try stack.fetchOne(From<Dog>())?.master?.name == "Ann")
    }
}
