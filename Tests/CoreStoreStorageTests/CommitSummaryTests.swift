import Foundation
import Testing
import CoreStoreStorage

@Suite("Commit summaries")
struct CommitSummaryTests {
    static func record(_ entity: String, _ key: Int64) -> Record {
        Record(id: RecordID(entity: entity, key: key), attributes: [], relationships: [])
    }

    @Test func summarizesWhatAWriteReported() {
        let info = CommitInfo(sequence: 7, permanentIDs: [:], changes: MergedChanges(
            inserts: [Self.record("Person", 3), Self.record("Pet", 4), Self.record("Person", 5)],
            updates: [RecordReplacement(old: Self.record("Person", 1), new: Self.record("Person", 1), changedKeys: ["name", "age"])],
            deletes: [Self.record("Pet", 2)]
        ))
        let summary = CommitSummary(info)
        #expect(summary.sequence == 7)
        let changes = summary.changes
        #expect(changes?.inserted.map(\.description) == ["Person#3", "Pet#4", "Person#5"])
        #expect(changes?.updated.map(\.description) == ["Person#1"])
        #expect(changes?.changedKeys[RecordID(entity: "Person", key: 1)] == ["name", "age"])
        #expect(changes?.deleted.map(\.description) == ["Pet#2"])
    }

    @Test(arguments: [
        CommitSummary.Changes(),
        CommitSummary.Changes(inserted: [RecordID(entity: "Person", key: 1), RecordID(entity: "Pet", key: 2), RecordID(entity: "Person", key: 3)]),
        CommitSummary.Changes(updated: [RecordID(entity: "Person", key: 9)], changedKeys: [RecordID(entity: "Person", key: 9): []]),
        CommitSummary.Changes(
            inserted: [RecordID(entity: "Odd,Name\tWith%Escapes\n", key: Int64.max)],
            updated: [RecordID(entity: "Person", key: 9), RecordID(entity: "Pet", key: 10)],
            changedKeys: [RecordID(entity: "Person", key: 9): ["name", "a,b", "50%"], RecordID(entity: "Pet", key: 10): ["owner"]],
            deleted: [RecordID(entity: "Person", key: 11), RecordID(entity: "Person", key: 12)]
        ),
        CommitSummary.Changes(
            inserted: [0, 7, 10, 99, 100, -1, -10, Int64.min, Int64.max].map { RecordID(entity: "Person", key: $0) },
            deleted: (1...250).map { RecordID(entity: "Pet", key: $0 * 1_000_003) }
        ),
        // Runs of consecutive keys (written as ranges from three keys on), up to the limit.
        CommitSummary.Changes(
            inserted: [1, 2, 4, 5, 6, 8, 9, 10, 11, -3, -2, -1, 0, Int64.max - 2, Int64.max - 1, Int64.max, Int64.min, Int64.min + 1, Int64.min + 2]
                .map { RecordID(entity: "Person", key: $0) },
            deleted: (1...Int64(CommitSummary.maximumRecordCount - 19)).map { RecordID(entity: "Pet", key: $0) }
        ),
        // Updates in runs of one entity and one set of changed keys, broken by another set of
        // keys, another entity, a gap in the keys, or the same keys in another order.
        CommitSummary.Changes(
            updated: [1, 2, 3, 4, 5, 6, 9, 10, 11, 12].map { RecordID(entity: "Person", key: $0) } + [RecordID(entity: "Pet", key: 13), RecordID(entity: "Person", key: 14)],
            changedKeys: Dictionary(uniqueKeysWithValues: [
                (1, ["age"]), (2, ["age"]), (3, ["age"]), (4, ["name", "age"]), (5, ["age", "name"]), (6, ["age", "name"]),
                (9, []), (10, []), (11, ["age"]), (12, ["age"]), (13, ["age"]), (14, ["age"]),
            ].map { (RecordID(entity: $0.0 == 13 ? "Pet" : "Person", key: Int64($0.0)), Set($0.1)) })
        ),
    ])
    func textFormReadsBackAsWritten(_ changes: CommitSummary.Changes) throws {
        let summary = CommitSummary(sequence: 42, changes: changes)
        let text = try #require(summary.encodedChanges)
        let read = try #require(CommitSummary(sequence: 42, encodedChanges: text))
        #expect(read == summary)
        // Entity names are compared too (identifiers compare by key only).
        #expect(read.changes?.inserted.map(\.entity) == changes.inserted.map(\.entity))
        #expect(read.changes?.updated.map(\.entity) == changes.updated.map(\.entity))
        #expect(read.changes?.deleted.map(\.entity) == changes.deleted.map(\.entity))
    }

    @Test func aCommitTooLargeToListIsSummarizedWithoutItsRecords() throws {
        let inserts = (1...Int64(CommitSummary.maximumRecordCount + 1)).map { Self.record("Person", $0) }
        let summary = CommitSummary(CommitInfo(sequence: 3, permanentIDs: [:], changes: MergedChanges(inserts: inserts)))
        #expect(summary.changes == nil)
        #expect(summary.encodedChanges == nil)
        let read = try #require(CommitSummary(sequence: 3, encodedChanges: nil))
        #expect(read.changes == nil)
        let limit = CommitSummary(CommitInfo(sequence: 4, permanentIDs: [:], changes: MergedChanges(inserts: Array(inserts.dropLast()))))
        #expect(limit.changes?.inserted.count == CommitSummary.maximumRecordCount)
    }

    @Test func consecutiveKeysAreWrittenAsRanges() throws {
        let changes = CommitSummary.Changes(
            inserted: [7, 8, 3, 4, 5, 6, 1].map { RecordID(entity: "Person", key: $0) },
            deleted: (1...10_000).map { RecordID(entity: "Pet", key: $0) }
        )
        let text = try #require(CommitSummary(sequence: 1, changes: changes).encodedChanges)
        #expect(text == "I\tPerson\t7,8,3..6,1\nD\tPet\t1..10000")
        // A bulk update of the same attributes is one line.
        let updated = (101...5_100).map { RecordID(entity: "Item", key: $0) } + [RecordID(entity: "Item", key: 7)]
        let updates = CommitSummary.Changes(updated: updated, changedKeys: Dictionary(uniqueKeysWithValues: updated.map { ($0, ["score", "age"]) }))
        #expect(CommitSummary(sequence: 2, changes: updates).encodedChanges == "U\tItem\t101..5100,7\tage,score")
    }

    @Test(arguments: [
        "I\tPerson\t5..3", "I\tPerson\t5..5", "I\tPerson\t1..x", "I\tPerson\t..5", "I\tPerson\t5..", "I\tPerson\t1...3",
        "D\tPerson\t1..10001", "D\tPerson\t1..5000\nI\tPet\t1..5001", "D\tPerson\t-9223372036854775808..9223372036854775807",
        "U\tPerson\t5..3\tname", "U\tPerson\t1..10001\tname", "U\tPerson\t1..6000\tname\nD\tPet\t1..4001",
    ])
    func rangesItNeverWritesAreRefused(_ text: String) {
        #expect(CommitSummary(sequence: 1, encodedChanges: text) == nil)
    }

    @Test(arguments: ["X\tPerson\t1", "I\tPerson\t1,x", "I\tPerson", "U\tPerson\t1", "U\tPerson\tx\tname", "D\tBad%ZZ\t1", "U\tPerson\t1\tbad%G"])
    func textItNeverWritesIsRefused(_ text: String) {
        #expect(CommitSummary(sequence: 1, encodedChanges: text) == nil)
    }
}
