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

    /// Identifiers written `Entity#key`: `RecordID` equality compares keys only, and these
    /// tests also check each identifier's entity.
    private static func spelled(_ map: [RecordID: RecordID]) -> [String: String] {
        Dictionary(uniqueKeysWithValues: map.map { ($0.key.description, $0.value.description) })
    }

    @Test func aCommitsPermanentIdentifiersKeepEachRecordsEntity() throws {
        // Entities alternate (several runs of one entity) and a permanent key sits among them.
        let changes = ChangeSet(inserts: [
            Fixtures.person(-1, "Ann", age: 1), Fixtures.dog(-2, "Rex"), Fixtures.dog(-3, "Fido"),
            Fixtures.cat(60, "Kit"), Fixtures.person(-4, "Bob", age: 2), Fixtures.dog(-5, "Max"),
        ])
        let prepared = try changes.prepareCommit(schema: Fixtures.schema, counters: CommitCounters(nextKey: 10, sequence: 3)) { ids in
            ids.map { _ in nil }
        }
        let expected = ["Person#-1": "Person#10", "Dog#-2": "Dog#11", "Dog#-3": "Dog#12", "Person#-4": "Person#13", "Dog#-5": "Dog#14"]
        #expect(Self.spelled(prepared.info.permanentIDs) == expected)
        #expect(Self.spelled(changes.assigningPermanentIDs(startingAt: 10).1) == expected)
        #expect(prepared.changes.inserts.map(\.id.description) == ["Person#10", "Dog#11", "Dog#12", "Cat#60", "Person#13", "Dog#14"])
        #expect(prepared.counters == CommitCounters(nextKey: 15, sequence: 4))
    }

    @Test func commitInfoComparesByItsPermanentIdentifiersWhateverTheirForm() throws {
        let changes = ChangeSet(inserts: [Fixtures.person(-1, "Ann", age: 1), Fixtures.dog(-2, "Rex")])
        let info = try changes.prepareCommit(schema: Fixtures.schema, counters: CommitCounters()) { ids in ids.map { _ in nil } }.info
        let given = CommitInfo(sequence: info.sequence, permanentIDs: info.permanentIDs, changes: info.changes)
        #expect(info == given)
        #expect(info.hashValue == given.hashValue)
        var replaced = info
        replaced.permanentIDs[RecordID(entity: "Dog", key: -2)] = RecordID(entity: "Dog", key: 99)
        #expect(Self.spelled(replaced.permanentIDs) == ["Person#-1": "Person#1", "Dog#-2": "Dog#99"])
        #expect(replaced != info)
        replaced.permanentIDs = [:]
        #expect(replaced.permanentIDs.isEmpty)
    }
}
