import Foundation
import CoreStoreStorage

/// Committed data survives closing and reopening the store (capability `persistent`).
enum DurabilityCases {
    static func c(_ name: String, requires: StorageCapabilities = .persistent, _ body: @escaping @Sendable (ConformanceContext) throws -> Void) -> ConformanceCase {
        ConformanceCase(name, group: "durability", requires: requires, body: body)
    }

    static let all: [ConformanceCase] = [
        c("records survive reopen") { ctx in
            let (store, world) = try ctx.seeded(Fixtures.world())
            let (reopened, _) = try ctx.reopen(store)
            for entity in ["Person", "Pet"] { try ctx.expectSameFetch(reopened, world, FetchRequest(entity: entity)) }
        },
        c("every value kind survives reopen") { ctx in
            let values = ValueCases.roundTrips.filter { $0.0 != "16 MiB bytes" }
            let (store, world) = try ctx.seeded(values.enumerated().map { Fixtures.sample(-Int64($0.offset + 1), [$0.element.1: $0.element.2]) })
            let (reopened, _) = try ctx.reopen(store)
            try ctx.expectSameFetch(reopened, world, FetchRequest(entity: "Sample"))
        },
        c("updates and deletes survive reopen") { ctx in
            var (store, world) = try ctx.seeded(Fixtures.world())
            var bob = world.all[1]
            bob.attributes[1] = .int(26)
            let ghost = world.all.first { $0.id.entity == "Pet" && $0.relationships[0].isEmpty }?.id ?? world.all[0].id
            try ctx.commit(store, ChangeSet(updates: [RecordUpdate(record: bob, changedKeys: ["age"])], deletes: [ghost]), into: &world)
            let (reopened, _) = try ctx.reopen(store)
            for entity in ["Person", "Pet"] { try ctx.expectSameFetch(reopened, world, FetchRequest(entity: entity)) }
        },
        c("keys are not reused after reopen") { ctx in
            var (store, world) = try ctx.seeded(Fixtures.world())
            let highest = world.all.map(\.id.key).max() ?? 0
            try ctx.commit(store, ChangeSet(deletes: world.all.filter { $0.id.entity == "Pet" && $0.relationships[0].isEmpty }.map(\.id)), into: &world)
            let (reopened, _) = try ctx.reopen(store)
            let info = try reopened.write(ChangeSet(inserts: [Fixtures.sample(-1, [:])]))
            let key = info.permanentIDs.values.first?.key ?? 0
            try ctx.expect(key > highest, "key \(key) after reopen is not above the highest key ever assigned (\(highest))")
        },
        c("sequence keeps growing after reopen") { ctx in
            let store = try ctx.openStore()
            var last: UInt64 = 0
            for _ in 0..<3 { last = try store.write(ChangeSet(inserts: [Fixtures.sample(-1, [:])])).sequence }
            let (reopened, _) = try ctx.reopen(store)
            let next = try reopened.write(ChangeSet(inserts: [Fixtures.sample(-1, [:])])).sequence
            try ctx.expect(next > last, "sequence after reopen \(next) is not above \(last)")
        },
        c("a failed write leaves nothing after reopen") { ctx in
            let (store, world) = try ctx.seeded(Fixtures.world())
            _ = try? store.write(ChangeSet(inserts: [Fixtures.pet(-1, "Dup", tag: 1)]))
            let (reopened, _) = try ctx.reopen(store)
            try ctx.expectSameFetch(reopened, world, FetchRequest(entity: "Pet"))
        },
        c("several reopen cycles") { ctx in
            var (store, world) = try ctx.seeded([])
            for i in 1...4 {
                try ctx.commit(store, ChangeSet(inserts: [Fixtures.pet(-1, "gen \(i)", tag: Int64(i))]), into: &world)
                (store, _) = try ctx.reopen(store)
            }
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Pet"))
        },
    ]
}
