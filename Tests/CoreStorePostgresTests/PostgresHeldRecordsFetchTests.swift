import Foundation
import Testing
import CoreStore
import CoreStoreSQL
@testable import CoreStorePostgres

final class HeldItem: CoreStoreObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("rank") var rank: Int = 0
    @Field.Relationship("tags") var tags: Set<HeldTag>
}

final class HeldTag: CoreStoreObject {
    @Field.Stored("label") var label: String = ""
}

/// A fetch whose context already holds most of the matching objects asks PostgreSQL for the
/// matching keys first (one array), then for the whole rows of the keys it does not hold; one
/// that finds most of them new reads whole rows, and the store remembers which kind the
/// entity's last fetch was. Either way the objects are those a fetch without held objects
/// returns.
@Suite("PostgreSQL fetches of records the context holds", .serialized)
struct PostgresHeldRecordsFetchTests {
    static let schema = CoreStoreSchema(modelVersion: "V1", entities: [Entity<HeldItem>("HeldItem"), Entity<HeldTag>("HeldTag")])

    /// A stack on a new schema of the test server, erased when `body` returns.
    private func withStack(_ body: (DataStack, PostgresStore) throws -> Void) throws {
        let url = try PostgresTestServer.requireURL()
        let schemaName = "held_records_\(UInt32.random(in: 0...UInt32.max))"
        defer { try? PostgresStore(url: url, schemaName: schemaName).erase() }
        let store = PostgresStore(url: url, schemaName: schemaName)
        let stack = DataStack(Self.schema)
        try stack.addStorageAndWait(store)
        try body(stack, store)
    }

    private func insertItems(_ stack: DataStack, ranks: Range<Int>) throws {
        try stack.perform(synchronous: { transaction in
            for rank in ranks {
                let item = transaction.create(Into<HeldItem>())
                item.name = "i\(rank)"
                item.rank = rank
                let tag = transaction.create(Into<HeldTag>())
                tag.label = "t\(rank)"
                item.tags = [tag]
            }
        })
    }

    private func prefersKeysFirst(_ store: PostgresStore) throws -> Bool {
        try store.openState().heldRecordsMemory.prefersKeysFirst(for: "HeldItem")
    }

    @Test func heldObjectsComeBackAndNewRecordsWhole() throws {
        try withStack { stack, store in
            try insertItems(stack, ranks: 0..<200)
            let held = try stack.fetchAll(From<HeldItem>())
            #expect(held.count == 200)
            // A commit the held objects take in, and 40 records the context has not seen.
            try stack.perform(synchronous: { transaction in
                for item in try transaction.fetchAll(From<HeldItem>().where(\.$rank >= 150 && \.$rank < 160)) {
                    item.name = "renamed\(item.rank)"
                }
            })
            try insertItems(stack, ranks: 200..<240)

            // 140 matches, 100 of them held: keys first, then the 40 new rows.
            let fetched = try stack.fetchAll(From<HeldItem>().where(\.$rank >= 100))
            #expect(fetched.map(\.rank) == Array(100..<240))
            #expect(fetched.map(\.name) == (100..<240).map { (150..<160).contains($0) ? "renamed\($0)" : "i\($0)" })
            #expect(fetched.map { $0.tags.map(\.label) } == (100..<240).map { ["t\($0)"] })
            let heldByRank = Dictionary(uniqueKeysWithValues: held.map { ($0.rank, $0) })
            #expect(fetched.prefix(100).allSatisfy { $0 === heldByRank[$0.rank] }, "a held object was made again")
            #expect(try prefersKeysFirst(store))
        }
    }

    @Test func mostlyNewRecordsAreReadWholeAndRemembered() throws {
        try withStack { stack, store in
            try insertItems(stack, ranks: 0..<100)
            let held = try stack.fetchAll(From<HeldItem>())
            try insertItems(stack, ranks: 100..<400)

            // 400 matches, 100 held: the keys show that most are new, so whole rows are read.
            let all = try stack.fetchAll(From<HeldItem>())
            #expect(all.map(\.rank) == Array(0..<400))
            #expect(all.map(\.name) == (0..<400).map { "i\($0)" })
            #expect(zip(all.prefix(100), held).allSatisfy { $0 === $1 })
            #expect(try prefersKeysFirst(store) == false)

            // The next fetch reads whole rows at once, finds them all held, and the one after
            // goes back to keys first.
            let again = try stack.fetchAll(From<HeldItem>().where(\.$rank < 300))
            #expect(again.map(\.rank) == Array(0..<300))
            #expect(zip(again, all).allSatisfy { $0 === $1 })
            #expect(try prefersKeysFirst(store))
            let third = try stack.fetchAll(From<HeldItem>().where(\.$rank >= 250))
            #expect(third.map(\.name) == (250..<400).map { "i\($0)" })
            #expect(try prefersKeysFirst(store))
        }
    }

    /// Sorted and windowed fetches read whole rows (their order is the server's to make), with
    /// the held objects returned as they are.
    @Test func sortedAndWindowedFetchesOfHeldRecords() throws {
        try withStack { stack, _ in
            try insertItems(stack, ranks: 0..<120)
            let held = try stack.fetchAll(From<HeldItem>())
            let descending = try stack.fetchAll(From<HeldItem>().orderBy(.descending(\.$rank)).tweak { $0.fetchLimit = 70 })
            #expect(descending.map(\.rank) == Array((50..<120).reversed()))
            #expect(descending.allSatisfy { item in held.contains { $0 === item } })
        }
    }
}
