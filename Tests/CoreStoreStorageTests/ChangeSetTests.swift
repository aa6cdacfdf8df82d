import Testing
import CoreStoreStorage

@Suite("Change sets")
struct ChangeSetTests {
    @Test func temporaryIdentifiersArePermanentEverywhereAfterAssignment() {
        let tempPerson = RecordID(entity: "Person", key: -1)
        let tempDog = RecordID(entity: "Dog", key: -2)
        let existing = RecordID(entity: "Person", key: 7)
        let changes = ChangeSet(
            inserts: [
                Fixtures.person(-1, "Ann", age: 1, pets: [tempDog]),
                Fixtures.dog(-2, "Rex", owner: tempPerson),
            ],
            updates: [RecordUpdate(record: Fixtures.person(7, "Old", age: 2, pets: [tempDog, RecordID(entity: "Dog", key: 3)]), changedKeys: ["pets"])],
            deletes: [RecordID(entity: "Dog", key: 4)]
        )
        let (resolved, map) = changes.assigningPermanentIDs(startingAt: 100)
        #expect(map[tempPerson] == RecordID(entity: "Person", key: 100))
        #expect(map[tempDog] == RecordID(entity: "Dog", key: 101))
        #expect(map[existing] == nil)
        #expect(resolved.inserts.map(\.id.key) == [100, 101])
        #expect(resolved.inserts[0].relationships[0].map(\.key) == [101])
        #expect(resolved.inserts[1].relationships[0].map(\.key) == [100])
        #expect(resolved.updates[0].record.relationships[0].map(\.key) == [101, 3])
        #expect(resolved.updates[0].record.id.key == 7)
        #expect(resolved.deletes.map(\.key) == [4])
    }

    @Test func insertsWithPermanentIdentifiersKeepThemAmongNumberedOnes() {
        let changes = ChangeSet(inserts: [Fixtures.cat(-1, "Tom"), Fixtures.cat(50, "Kit"), Fixtures.cat(-3, "Max")])
        let (resolved, map) = changes.assigningPermanentIDs(startingAt: 100)
        #expect(resolved.inserts.map(\.id.key) == [100, 50, 101])
        #expect(resolved.inserts.map { $0.attributes } == changes.inserts.map { $0.attributes })
        #expect(map == [RecordID(entity: "Cat", key: -1): RecordID(entity: "Cat", key: 100), RecordID(entity: "Cat", key: -3): RecordID(entity: "Cat", key: 101)])
    }

    @Test func aChangeSetWithoutTemporariesIsUnchanged() {
        let changes = ChangeSet(inserts: [Fixtures.cat(5, "Tom")])
        let (resolved, map) = changes.assigningPermanentIDs(startingAt: 1)
        #expect(map.isEmpty)
        #expect(resolved == changes)
    }
}
