import Foundation
import CoreStoreStorage

/// What ``StorageInterface/write(_:)`` reports about each commit (requirement 3): a sequence
/// that strictly increases, one fresh permanent identifier per temporary insert and none for
/// anything else, empty change sets, and failed writes that leave no trace.
enum ChangeCases {
    static func c(_ name: String, requires: StorageCapabilities = [], _ body: @escaping @Sendable (ConformanceContext) throws -> Void) -> ConformanceCase {
        ConformanceCase(name, group: "changes", requires: requires, body: body)
    }

    /// One change set of every kind the contract knows, built from the current `world`.
    static func commitsOfEveryKind(_ world: World, round: Int) -> [(String, ChangeSet)] {
        let unowned = world.all.filter { $0.id.entity == "Pet" && $0.relationships[0].isEmpty }
        var renamed = unowned.first ?? Fixtures.pet(1, "?")
        renamed.attributes[0] = .string("renamed \(round)")
        var renamedAgain = renamed
        renamedAgain.attributes[0] = .string("renamed again \(round)")
        let metadata = StoredMetadata(modelVersion: "V1", schemaHash: Fixtures.schema.schemaHash, userInfo: ["round": "\(round)"])
        return [
            ("an insert", ChangeSet(inserts: [Fixtures.pet(-1, "new \(round)")])),
            ("an update", ChangeSet(updates: [RecordUpdate(record: renamed, changedKeys: ["name"])])),
            ("a delete", ChangeSet(deletes: unowned.dropFirst().prefix(1).map(\.id))),
            ("an insert, an update and a delete", ChangeSet(
                inserts: [Fixtures.sample(-1, ["int": .int(Int64(round))])],
                updates: [RecordUpdate(record: renamedAgain, changedKeys: ["name"])],
                deletes: unowned.dropFirst(2).prefix(1).map(\.id)
            )),
            ("metadata only", ChangeSet(metadata: metadata)),
            ("an empty change set", ChangeSet()),
        ]
    }

    /// The fixture world and ten pets without an owner, which the cases may delete.
    static func worldWithSparePets() -> [Record] {
        Fixtures.world() + (1...10).map { Fixtures.pet(-Int64(300 + $0), "spare \($0)") }
    }

    /// Writes every commit of ``commitsOfEveryKind(_:round:)`` and checks that each sequence is
    /// above `last`; returns the last sequence.
    static func expectIncreasingSequences(_ ctx: ConformanceContext, _ store: any StorageInterface, _ world: inout World, after last: UInt64?, round: Int) throws -> UInt64? {
        var last = last
        for (what, changes) in commitsOfEveryKind(world, round: round) {
            let info = try ctx.commit(store, changes, into: &world)
            if let last {
                try ctx.expect(info.sequence > last, "the commit of \(what) (round \(round)) has sequence \(info.sequence), not above the previous commit's \(last)")
            }
            last = info.sequence
        }
        return last
    }

    static let all: [ConformanceCase] = [
        c("the sequence strictly increases over commits of every kind") { ctx in
            var (store, world) = try ctx.seeded(worldWithSparePets())
            var last: UInt64?
            for round in 1...3 { last = try expectIncreasingSequences(ctx, store, &world, after: last, round: round) }
        },
        c("the sequence strictly increases across reopens", requires: .persistent) { ctx in
            var (store, world) = try ctx.seeded(worldWithSparePets())
            var last: UInt64?
            for round in 1...3 {
                last = try expectIncreasingSequences(ctx, store, &world, after: last, round: round)
                (store, _) = try ctx.reopen(store)
            }
            for entity in ["Person", "Pet", "Sample"] { try ctx.expectSameFetch(store, world, FetchRequest(entity: entity)) }
        },
        c("one distinct permanent identifier per temporary insert") { ctx in
            var (store, world) = try ctx.seeded([Fixtures.person(-1, "Existing"), Fixtures.pet(-2, "Existing pet")])
            let existing = Set(world.all.map(\.id))
            let changes = ChangeSet(inserts: Fixtures.world())
            let info = try ctx.commit(store, changes, into: &world)
            try ctx.expectEqual(Set(info.permanentIDs.keys), Set(changes.inserts.map(\.id)), "temporary identifiers with a permanent one")
            for (temporary, permanent) in info.permanentIDs {
                try ctx.expect(!permanent.isTemporary, "\(temporary) was given the temporary identifier \(permanent)")
                try ctx.expectEqual(permanent.entity, temporary.entity, "entity of the permanent identifier of \(temporary)")
                try ctx.expect(!existing.contains { $0.key == permanent.key }, "\(temporary) was given \(permanent), the key of an existing record")
            }
            try ctx.expectEqual(Set(info.permanentIDs.values).count, info.permanentIDs.count, "number of distinct permanent identifiers")
            let stored = try ctx.fetch(store, FetchRequest(entity: "Person")) + ctx.fetch(store, FetchRequest(entity: "Pet"))
            try ctx.expectEqual(Set(stored.map(\.id)).subtracting(existing), Set(info.permanentIDs.values), "identifiers of the stored new records")
        },
        c("updates and deletes get no permanent identifiers") { ctx in
            var (store, world) = try ctx.seeded(Fixtures.world())
            var bob = world.all[1]
            bob.attributes[1] = .int(26)
            let updated = try ctx.commit(store, ChangeSet(updates: [RecordUpdate(record: bob, changedKeys: ["age"])]), into: &world)
            try ctx.expectEqual(updated.permanentIDs, [:], "permanent identifiers of an update-only commit")
            let ghost = world.all.first { $0.id.entity == "Pet" && $0.relationships[0].isEmpty }?.id ?? world.all[0].id
            let deleted = try ctx.commit(store, ChangeSet(deletes: [ghost]), into: &world)
            try ctx.expectEqual(deleted.permanentIDs, [:], "permanent identifiers of a delete-only commit")
        },
        c("a mixed commit maps exactly its inserts") { ctx in
            var (store, world) = try ctx.seeded(Fixtures.world())
            var ann = world.all[0]
            ann.attributes[3] = .double(9)
            let ghost = world.all.first { $0.id.entity == "Pet" && $0.relationships[0].isEmpty }?.id ?? world.all[0].id
            let inserts = [Fixtures.pet(-1, "Neo", tag: 900), Fixtures.dog(-2, "Spot", tag: 901), Fixtures.sample(-3, [:])]
            let info = try ctx.commit(store, ChangeSet(inserts: inserts, updates: [RecordUpdate(record: ann, changedKeys: ["score"])], deletes: [ghost]), into: &world)
            try ctx.expectEqual(Set(info.permanentIDs.keys), Set(inserts.map(\.id)), "temporary identifiers mapped by a mixed commit")
            try ctx.expect(!info.permanentIDs.values.contains(ann.id) && !info.permanentIDs.values.contains(ghost),
                           "a permanent identifier names the updated or the deleted record: \(info.permanentIDs)")
            for entity in ["Person", "Pet", "Sample"] { try ctx.expectSameFetch(store, world, FetchRequest(entity: entity)) }
        },
        c("permanent identifiers are never handed out twice") { ctx in
            var (store, world) = try ctx.seeded([])
            var handedOut: Set<Int64> = []
            for round in 1...5 {
                let info = try ctx.commit(store, ChangeSet(inserts: [Fixtures.pet(-1, "a\(round)"), Fixtures.sample(-2, [:])]), into: &world)
                for permanent in info.permanentIDs.values {
                    try ctx.expect(handedOut.insert(permanent.key).inserted, "round \(round) handed out key \(permanent.key) again")
                }
                try ctx.commit(store, ChangeSet(deletes: info.permanentIDs.values.filter { $0.entity == "Pet" }), into: &world)
            }
        },
        c("a temporary identifier names no stored record after the commit") { ctx in
            let store = try ctx.openStore()
            let temporary = Fixtures.id("Pet", -1)
            let info = try store.write(ChangeSet(inserts: [Fixtures.pet(-1, "Neo")]))
            let read = try ctx.records(store, [temporary, info.permanentIDs[temporary] ?? temporary])
            try ctx.expect(read[0] == nil, "records(_:) answered \(String(describing: read[0])) for the temporary identifier \(temporary)")
            try ctx.expectEqual(read[1]?.attributes.first, .string("Neo"), "name of the record under its permanent identifier")
        },
        c("an empty change set commits and changes nothing") { ctx in
            var (store, world) = try ctx.seeded(Fixtures.world())
            let last = try ctx.commit(store, ChangeSet(inserts: [Fixtures.sample(-1, [:])]), into: &world)
            let empty = try store.write(ChangeSet())
            try ctx.expectEqual(empty.permanentIDs, [:], "permanent identifiers of an empty change set")
            try ctx.expect(empty.sequence > last.sequence, "the empty commit's sequence \(empty.sequence) is not above the previous commit's \(last.sequence)")
            for entity in ["Person", "Pet", "Code", "Sample"] { try ctx.expectSameFetch(store, world, FetchRequest(entity: entity)) }
            try ctx.expectEqual(try store.open(schema: Fixtures.schema)?.userInfo, [:], "metadata after an empty change set")
            let next = try ctx.commit(store, ChangeSet(inserts: [Fixtures.sample(-1, [:])]), into: &world)
            let lastKey = last.permanentIDs.values.first?.key ?? 0
            try ctx.expectEqual(next.permanentIDs.values.first?.key, lastKey + 1, "key of the first insert after an empty commit")
            try ctx.expect(next.sequence > empty.sequence, "the commit after an empty one has sequence \(next.sequence), not above \(empty.sequence)")
        },
        c("a metadata-only change set changes only the metadata") { ctx in
            var (store, world) = try ctx.seeded(Fixtures.world())
            let metadata = StoredMetadata(modelVersion: "V1", schemaHash: Fixtures.schema.schemaHash, userInfo: ["only": "metadata"])
            let info = try ctx.commit(store, ChangeSet(metadata: metadata), into: &world)
            try ctx.expectEqual(info.permanentIDs, [:], "permanent identifiers of a metadata-only change set")
            try ctx.expectEqual(try store.open(schema: Fixtures.schema), metadata, "metadata after the commit")
            for entity in ["Person", "Pet"] { try ctx.expectSameFetch(store, world, FetchRequest(entity: entity)) }
        },
        c("an insert under a key already stored is refused and writes nothing, alone or among many") { ctx in
            var (store, world) = try ctx.seeded(Fixtures.world())
            guard let taken = world.all.first(where: { $0.id.entity == "Pet" }) else { try ctx.fail("the seeded world has no pet") }
            let top = world.all.map(\.id.key).max() ?? 0
            // Alone, then first of ten ascending keys (a store may check many inserts at once).
            let batches: [[Record]] = [
                [Fixtures.pet(taken.id.key, "Usurper")],
                [Fixtures.pet(taken.id.key, "Usurper")] + (1...9).map { Fixtures.pet(top + 1_000 + Int64($0), "new \($0)") },
            ]
            for batch in batches {
                try ctx.expectError("\(batch.count) inserts, one under the stored key \(taken.id.key)") { _ = try store.write(ChangeSet(inserts: batch)) }
                for entity in ["Person", "Pet", "Code", "Sample"] { try ctx.expectSameFetch(store, world, FetchRequest(entity: entity)) }
            }
            try ctx.commit(store, ChangeSet(inserts: [Fixtures.pet(-1, "After")]), into: &world)
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Pet"))
        },
        c("a failed write does not advance what later reads see") { ctx in
            var (store, world) = try ctx.seeded(Fixtures.world())
            var bob = world.all[1]
            bob.attributes[1] = .int(26)
            let first = try ctx.commit(store, ChangeSet(updates: [RecordUpdate(record: bob, changedKeys: ["age"])]), into: &world)
            var clash = world.all[0]
            clash.attributes[0] = .string("Changed by a failed write")
            try ctx.expectError("a change set that updates Ann and inserts a duplicate email") {
                _ = try store.write(ChangeSet(inserts: [Fixtures.person(-1, "Dup", email: "bob@x")], updates: [RecordUpdate(record: clash, changedKeys: ["name"])]))
            }
            for entity in ["Person", "Pet"] { try ctx.expectSameFetch(store, world, FetchRequest(entity: entity)) }
            try ctx.expectEqual(try store.read { try $0.count(FetchRequest(entity: "Person", predicate: .comparison(Comparison(["name"], .equal, .value(.string("Dup")))))) }, 0, "people named Dup")
            let second = try ctx.commit(store, ChangeSet(inserts: [Fixtures.pet(-1, "After", tag: 999)]), into: &world)
            try ctx.expect(second.sequence > first.sequence, "the commit after a failed write has sequence \(second.sequence), not above \(first.sequence)")
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Pet"))
        },
    ]
}
