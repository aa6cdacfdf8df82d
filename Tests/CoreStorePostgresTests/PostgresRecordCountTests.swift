import Foundation
import Testing
import CoreStore
import CoreStoreSQL
@testable import CoreStorePostgres

class CountedAnimal: CoreStoreObject {
    @Field.Stored("name") var name: String = ""
}

final class CountedDog: CountedAnimal {
    @Field.Stored("tag") var tag: Int = 0
}

final class CountedPen: CoreStoreObject {
    @Field.Stored("name") var name: String = ""
}

/// A PostgreSQL store keeps each entity's number of records in `corestore_record_counts`,
/// written in every commit's own transaction, and answers a count without a predicate from it
/// (``SQLRecordCounts``) — as long as its stamp says every commit kept it.
@Suite("PostgreSQL record counts", .serialized)
struct PostgresRecordCountTests {
    static let schema = CoreStoreSchema(modelVersion: "V1", entities: [
        Entity<CountedAnimal>("CountedAnimal"), Entity<CountedDog>("CountedDog"), Entity<CountedPen>("CountedPen"),
    ])

    /// A store in a new schema, and a raw connection to look at its tables.
    struct Fixture {
        let url: String
        let schemaName = "record_counts_\(UInt32.random(in: 0...UInt32.max))"
        let raw: PostgresConnection

        init() throws {
            url = try PostgresTestServer.requireURL()
            raw = try PostgresConnection(connectionString: url, location: "test")
        }

        func stack() throws -> DataStack {
            let stack = DataStack(PostgresRecordCountTests.schema)
            try stack.addStorageAndWait(PostgresStore(url: url, schemaName: schemaName))
            return stack
        }

        /// The stored table: entity → records (the stamp under "").
        func storedCounts() throws -> [String: Int64] {
            var counts: [String: Int64] = [:]
            try raw.statement("SELECT entity, records FROM \(schemaName.sqlIdentifier).corestore_record_counts").query { row in
                counts[row.text(0) ?? "?"] = row.int64(1)
            }
            return counts
        }

        /// The rows of each entity, counted by the server.
        func rowCounts() throws -> [String: Int64] {
            var counts: [String: Int64] = ["CountedAnimal": 0, "CountedDog": 0, "CountedPen": 0]
            for table in ["CountedAnimal", "CountedPen"] {
                try raw.statement("SELECT \"_entity\", count(*) FROM \(schemaName.sqlIdentifier).\(table.sqlIdentifier) GROUP BY 1").query { row in
                    counts[row.text(0) ?? "?"] = row.int64(1)
                }
            }
            return counts
        }

        /// The store's commit sequence.
        func sequence() throws -> Int64 {
            var sequence: Int64 = -1
            try raw.statement("SELECT value::bigint FROM \(schemaName.sqlIdentifier).corestore_metadata WHERE key = 'sequence'").query { sequence = $0.int64(0) }
            return sequence
        }

        /// Checks that the table holds the rows' counts, stamped with the store's sequence.
        func expectCurrent(_ comment: Comment) throws {
            var expected = try rowCounts()
            expected[""] = try sequence()
            #expect(try storedCounts() == expected, comment)
        }

        /// A stack on the store holding `count` pens, written in one commit.
        func stack(withPens count: Int) throws -> DataStack {
            let stack = try stack()
            try stack.perform(synchronous: { t in
                for i in 0..<count { t.create(Into<CountedPen>()).name = "pen\(i)" }
            })
            return stack
        }

        func erase() {
            try? PostgresStore(url: url, schemaName: schemaName).erase()
        }
    }

    /// What `stack` counts of each kind: the stored path (no predicate) and the rows (a
    /// predicate every record matches).
    static func counts(_ stack: DataStack) throws -> (stored: [Int], rows: [Int]) {
        let stored = [
            try stack.fetchCount(From<CountedAnimal>()),
            try stack.fetchCount(From<CountedAnimal>().tweak { $0.includesSubentities = false }),
            try stack.fetchCount(From<CountedDog>()),
            try stack.fetchCount(From<CountedPen>()),
            try stack.fetchCount(From<CountedPen>().tweak { $0.fetchOffset = 2; $0.fetchLimit = 3 }),
        ]
        let rows = [
            try stack.fetchCount(From<CountedAnimal>().where(\.$name != "~")),
            try stack.fetchCount(From<CountedAnimal>().where(\.$name != "~").tweak { $0.includesSubentities = false }),
            try stack.fetchCount(From<CountedDog>().where(\.$name != "~")),
            try stack.fetchCount(From<CountedPen>().where(\.$name != "~")),
            try stack.fetchCount(From<CountedPen>().where(\.$name != "~").tweak { $0.fetchOffset = 2; $0.fetchLimit = 3 }),
        ]
        return (stored, rows)
    }

    /// Two stacks (as two processes would, each with its own connections) insert and delete
    /// records of a hierarchy and of a plain entity, by single keys and by key ranges: the table
    /// follows every commit, and each stack's counts without a predicate equal its counts of
    /// the rows.
    @Test func countsFollowEveryCommitOfEveryStack() throws {
        let fixture = try Fixture()
        defer { fixture.erase() }
        let first = try fixture.stack()
        let second = try fixture.stack()
        try fixture.expectCurrent("a new store counts zero of every entity")
        #expect(try Self.counts(first).stored == [0, 0, 0, 0, 0])

        try first.perform(synchronous: { t in
            for i in 0..<40 { t.create(Into<CountedDog>()).name = "dog\(i)" }
            for i in 0..<7 { t.create(Into<CountedAnimal>()).name = "animal\(i)" }
            for i in 0..<25 { t.create(Into<CountedPen>()).name = "pen\(i)" }
        })
        try fixture.expectCurrent("after the inserts")
        for stack in [first, second] {
            let (stored, rows) = try Self.counts(stack)
            #expect(stored == [47, 7, 40, 25, 3])
            #expect(stored == rows)
        }

        // A range of 20 consecutive dogs, scattered pens, and one plain animal, from the other
        // stack; then an insert and a delete of the same entity in one commit.
        let deleted = try second.perform(synchronous: { t in
            try t.deleteAll(From<CountedDog>().where(\.$name ~= (5..<25).map { "dog\($0)" }))
                + t.deleteAll(From<CountedPen>().where(\.$name ~= ["pen1", "pen7", "pen20"]))
                + t.deleteAll(From<CountedAnimal>().where(\.$name == "animal3").tweak { $0.includesSubentities = false })
        })
        #expect(deleted == 24)
        try first.perform(synchronous: { t in
            t.create(Into<CountedPen>()).name = "pen-new"
            try t.deleteAll(From<CountedPen>().where(\.$name == "pen0"))
            try t.deleteAll(From<CountedDog>().where(\.$name == "dog0"))
        })
        try fixture.expectCurrent("after the deletes")
        for stack in [first, second] {
            let (stored, rows) = try Self.counts(stack)
            #expect(stored == [25, 6, 19, 22, 3])
            #expect(stored == rows)
        }
        // A commit of updates only, and an empty one, move the stamp and nothing else.
        try second.perform(synchronous: { t in
            for pen in try t.fetchAll(From<CountedPen>()) { pen.name += "!" }
        })
        try first.perform(synchronous: { _ in })
        try fixture.expectCurrent("after updates and an empty commit")
    }

    /// A count without a predicate is read from the table: a count planted there (with the
    /// stamp left current) is what the stack reports, while a count of the rows is not fooled.
    @Test func aCountWithoutAPredicateReadsTheTable() throws {
        let fixture = try Fixture()
        defer { fixture.erase() }
        let stack = try fixture.stack(withPens: 5)
        try fixture.raw.execute("UPDATE \(fixture.schemaName.sqlIdentifier).corestore_record_counts SET records = 1234 WHERE entity = 'CountedPen'")
        #expect(try stack.fetchCount(From<CountedPen>()) == 1234)
        #expect(try stack.fetchCount(From<CountedPen>().where(\.$name != "~")) == 5)
    }

    /// A commit that did not keep the counts (here: rows and sequence changed by hand, as a
    /// process running an earlier CoreStore would) leaves the stamp behind: counts are then made
    /// from the rows, later commits leave the stale table alone, and the next open of the store
    /// counts every table anew.
    @Test func staleCountsAreNotTrustedAndAreRecountedOnOpen() throws {
        let fixture = try Fixture()
        defer { fixture.erase() }
        let stack = try fixture.stack(withPens: 6)
        let schema = fixture.schemaName.sqlIdentifier
        // What a commit of an earlier CoreStore does: rows and counters, no record counts.
        try fixture.raw.execute("""
            BEGIN;
            DELETE FROM \(schema)."CountedPen" WHERE name IN ('pen0', 'pen1');
            UPDATE \(schema).corestore_metadata SET value = (value::bigint + 1)::text WHERE key = 'sequence';
            COMMIT
            """)
        #expect(try stack.fetchCount(From<CountedPen>()) == 4)
        try stack.perform(synchronous: { t in
            t.create(Into<CountedPen>()).name = "pen-new"
        })
        #expect(try stack.fetchCount(From<CountedPen>()) == 5)
        #expect(try fixture.storedCounts()["CountedPen"] == 6, "a commit after a stale stamp leaves the counts alone")
        // A new open brings them up to date.
        let reopened = try fixture.stack()
        try fixture.expectCurrent("after the next open")
        #expect(try reopened.fetchCount(From<CountedPen>()) == 5)
        try reopened.perform(synchronous: { t in
            t.create(Into<CountedPen>()).name = "pen-newer"
        })
        try fixture.expectCurrent("after a commit on the recounted table")
        #expect(try stack.fetchCount(From<CountedPen>()) == 6)
    }

    /// A store made before record counts were kept (no table) gets them, counted, when opened.
    @Test func aStoreWithoutTheTableGetsItOnOpen() throws {
        let fixture = try Fixture()
        defer { fixture.erase() }
        do {
            let stack = try fixture.stack()
            try stack.perform(synchronous: { t in
                for i in 0..<9 { t.create(Into<CountedDog>()).name = "dog\(i)" }
                for i in 0..<2 { t.create(Into<CountedPen>()).name = "pen\(i)" }
            })
        }
        try fixture.raw.execute("DROP TABLE \(fixture.schemaName.sqlIdentifier).corestore_record_counts")
        let stack = try fixture.stack()
        try fixture.expectCurrent("after the open")
        #expect(try Self.counts(stack).stored == [9, 0, 9, 2, 0])
    }

    /// A commit that fails writes none of its counts: here a delete of a record that another
    /// connection removed meanwhile, after an insert in the same commit.
    @Test func aFailedCommitLeavesTheCounts() throws {
        let fixture = try Fixture()
        defer { fixture.erase() }
        let stack = try fixture.stack(withPens: 3)
        let before = try fixture.storedCounts()
        #expect(throws: (any Error).self) {
            try stack.perform(synchronous: { t in
                t.create(Into<CountedDog>()).name = "dog"
                try t.deleteAll(From<CountedPen>().where(\.$name == "pen1"))
                // Removed behind the transaction's back before it commits.
                try fixture.raw.execute("DELETE FROM \(fixture.schemaName.sqlIdentifier).\"CountedPen\" WHERE name = 'pen1'")
            })
        }
        #expect(try fixture.storedCounts() == before)
    }

    /// A migration counts the records of its new tables: the counts are current after it, and
    /// the next commit keeps them.
    @Test func aMigrationCountsItsTablesAnew() async throws {
        let url = try PostgresTestServer.requireURL()
        let schemaName = try PostgresMigrationTests.seededV1(url: url, count: 30)
        defer { try? PostgresStore(url: url, schemaName: schemaName).erase() }
        let raw = try PostgresConnection(connectionString: url, location: "test")
        // Stale before the migration, so that only the migration's count can make them current.
        try raw.execute("UPDATE \(schemaName.sqlIdentifier).corestore_record_counts SET records = 999")
        let stack = DataStack(MigratingNoteV1.schema, MigratingNoteV2.schema)
        let migrated = try await PostgresMigrationTests.add(
            PostgresStore(url: url, schemaName: schemaName, migrationMappingProviders: [PostgresMigrationTests.toV2(counting: CallCounter())]), to: stack)
        #expect(migrated)
        func stored() throws -> [String: Int64] {
            var counts: [String: Int64] = [:]
            try raw.statement("SELECT entity, records FROM \(schemaName.sqlIdentifier).corestore_record_counts").query { counts[$0.text(0) ?? "?"] = $0.int64(1) }
            return counts
        }
        var sequence: Int64 = -1
        try raw.statement("SELECT value::bigint FROM \(schemaName.sqlIdentifier).corestore_metadata WHERE key = 'sequence'").query { sequence = $0.int64(0) }
        #expect(try stored() == ["Note": 30, "": sequence])
        #expect(try stack.fetchCount(From<MigratingNoteV2.Note>()) == 30)
        try stack.perform(synchronous: { t in
            try t.deleteAll(From<MigratingNoteV2.Note>().where(\.$length == 1))
        })
        #expect(try stack.fetchCount(From<MigratingNoteV2.Note>()) == 25)
        #expect(try stored()["Note"] == 25)
    }
}
