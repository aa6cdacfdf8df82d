import Foundation
import CoreStoreStorage

/// Inserting, updating, deleting, identifiers and commit sequences (requirement 3).
enum CRUDCases {
    static func c(_ name: String, requires: StorageCapabilities = [], _ body: @escaping @Sendable (ConformanceContext) throws -> Void) -> ConformanceCase {
        ConformanceCase(name, group: "crud", requires: requires, body: body)
    }

    static func isNotFound(_ error: StorageError) -> Bool {
        if case .recordNotFound = error { return true }
        return false
    }

    static let all: [ConformanceCase] = [
        c("inserts get distinct positive permanent keys") { ctx in
            let store = try ctx.openStore()
            let changes = ChangeSet(inserts: Fixtures.world())
            let info = try store.write(changes)
            try ctx.expectEqual(Set(info.permanentIDs.keys.map(\.key)), Set(changes.inserts.map(\.id.key)), "temporary identifiers mapped")
            let keys = info.permanentIDs.values.map(\.key)
            try ctx.expect(keys.allSatisfy { $0 > 0 }, "permanent keys \(keys.sorted()) are not all positive")
            try ctx.expectEqual(Set(keys).count, keys.count, "number of distinct permanent keys")
            for (temporary, permanent) in info.permanentIDs {
                try ctx.expectEqual(permanent.entity, temporary.entity, "entity of the permanent identifier of \(temporary)")
            }
        },
        c("inserted records read back by identifier") { ctx in
            let (store, world) = try ctx.seeded(Fixtures.world())
            let read = try ctx.records(store, world.all.map(\.id))
            for (actual, expected) in zip(read, world.all) { try ctx.expectSameRecord(actual, expected) }
        },
        c("records(_:) keeps input order and answers nil for missing") { ctx in
            let (store, world) = try ctx.seeded(Fixtures.world())
            let ids = world.all.map(\.id)
            let asked = [ids[3], Fixtures.id("Person", 99_999), ids[0], ids[3], Fixtures.id("Pet", -1)]
            let read = try ctx.records(store, asked)
            try ctx.expectEqual(read.map { $0?.id.key }, [ids[3].key, nil, ids[0].key, ids[3].key, nil], "keys returned by records(_:)")
        },
        c("unsorted fetch is in key order") { ctx in
            let (store, world) = try ctx.seeded(Fixtures.world())
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Person"))
        },
        c("fetches whose asker holds many of the matches return what the reference does") { ctx in
            // Enough records that a store may read held ones another way (SQL stores ask for the
            // matching keys first when the asker holds at least 64 records and most matches
            // were held the last time), and rounds that hold most, few, then most again, so a
            // store that adapts to its last fetch is checked after each switch. Records come in
            // that the asker has not seen, and it holds records the predicate no longer matches.
            let people = (1...300).map { i in
                Fixtures.person(-Int64(i), "p\(i)", age: Int64(i % 60), email: "p\(i)@x", score: Double(i) / 4)
            }
            var (store, world) = try ctx.seeded(people)
            let requests = [
                FetchRequest(entity: "Person"),
                FetchRequest(entity: "Person", predicate: PredicateCases.cmp("age", .greaterOrEqual, .int(12))),
            ]
            for (round, tenths) in [10, 9, 1, 1, 9, 6, 10].enumerated() {
                if round == 3 {
                    let newcomers = (301...340).map { i in Fixtures.person(-Int64(i), "p\(i)", age: 30, email: "p\(i)@x") }
                    _ = try ctx.commit(store, ChangeSet(inserts: newcomers), into: &world)
                }
                for request in requests {
                    let expected = try world.reference(request)
                    var known = KnownRecordKeys()
                    if tenths == 10 {
                        for record in world.all { known.insert(record.id.key) }
                    } else {
                        for (i, record) in expected.enumerated() where i % 10 < tenths { known.insert(record.id.key) }
                    }
                    try ctx.expectHonouredHint(store, request, expected, known: known)
                }
            }
        },
        c("fetch of a parent includes sub-entities") { ctx in
            let (store, world) = try ctx.seeded(Fixtures.world())
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Pet"))
        },
        c("fetch without sub-entities") { ctx in
            let (store, world) = try ctx.seeded(Fixtures.world())
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Pet", includesSubentities: false))
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Dog"))
        },
        c("an empty entity fetches nothing") { ctx in
            let (store, world) = try ctx.seeded(Fixtures.world())
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Code"))
        },
        c("update replaces the whole record") { ctx in
            var (store, world) = try ctx.seeded(Fixtures.world())
            var record = world.all[1]
            record.attributes = [.string("Robert"), .null, .string("robert@x"), .double(-1)]
            try ctx.commit(store, ChangeSet(updates: [RecordUpdate(record: record, changedKeys: ["name", "age", "email", "score"])]), into: &world)
            try ctx.expectSameRecord(try ctx.records(store, [record.id]).first ?? nil, record)
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Person"))
        },
        c("delete removes the record") { ctx in
            var (store, world) = try ctx.seeded(Fixtures.world())
            let victim = world.all.first { $0.id.entity == "Pet" && $0.relationships[0].isEmpty }
            guard let victim else { try ctx.fail("no pet without owner in the fixture") }
            try ctx.commit(store, ChangeSet(deletes: [victim.id]), into: &world)
            try ctx.expect(try ctx.records(store, [victim.id]).first ?? nil == nil, "records(_:) still returns the deleted \(victim.id)")
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Pet"))
        },
        c("insert, update and delete in one change set") { ctx in
            var (store, world) = try ctx.seeded(Fixtures.world())
            let pets = world.all.filter { $0.id.entity == "Pet" && $0.relationships[0].isEmpty }
            var updated = pets[0]
            updated.attributes[0] = .string("Renamed")
            try ctx.commit(store, ChangeSet(inserts: [Fixtures.pet(-1, "New", tag: 100)], updates: [RecordUpdate(record: updated, changedKeys: ["name"])],
                                            deletes: [pets[1].id]), into: &world)
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Pet"))
        },
        c("update of a missing record throws recordNotFound") { ctx in
            let (store, _) = try ctx.seeded(Fixtures.world())
            try ctx.expectError("updating Person#99999", matching: isNotFound) {
                _ = try store.write(ChangeSet(updates: [RecordUpdate(record: Fixtures.person(99_999, "Ghost"), changedKeys: ["name"])]))
            }
        },
        c("delete of a missing record throws recordNotFound") { ctx in
            let (store, _) = try ctx.seeded(Fixtures.world())
            try ctx.expectError("deleting Person#99999", matching: isNotFound) {
                _ = try store.write(ChangeSet(deletes: [Fixtures.id("Person", 99_999)]))
            }
        },
        c("delete of an already deleted record throws recordNotFound") { ctx in
            var (store, world) = try ctx.seeded([Fixtures.pet(-1, "Rex")])
            let id = world.all[0].id
            try ctx.commit(store, ChangeSet(deletes: [id]), into: &world)
            try ctx.expectError("deleting \(id) twice", matching: isNotFound) { _ = try store.write(ChangeSet(deletes: [id])) }
        },
        c("a delete the writer wants no record back from still fails on a missing record and writes nothing") { ctx in
            // With nothing committed since the writer read (its base sequence) and no deleted
            // record wanted back, a store may remove records of entities without relationships
            // unread, but never a delete of one that is not there.
            var (store, world) = try ctx.seeded((Int64(1)...20).map { Fixtures.code(-$0, "c\($0)", $0) })
            let keys = world.all.map(\.id.key).sorted()
            let info = try ctx.commit(store, ChangeSet(inserts: [Fixtures.code(-1, "last", 0)]), into: &world)
            let missingInRun = (keys.min() ?? 1) - 1
            let alone = (keys.max() ?? 1) + 10_000
            for missing in [missingInRun, alone] {
                var changes = ChangeSet(deletes: (keys + [missing]).sorted().map { Fixtures.id("Code", $0) }, baseSequence: info.sequence)
                changes.returnsDeletedRecords = false
                try ctx.expectError("deleting Code#\(missing) with 20 stored codes", matching: { error in
                    if case .conflict = error { return true }
                    return isNotFound(error)
                }) { _ = try store.write(changes) }
                try ctx.expectSameFetch(store, world, FetchRequest(entity: "Code"))
            }
            var changes = ChangeSet(deletes: keys.map { Fixtures.id("Code", $0) }, baseSequence: info.sequence)
            changes.returnsDeletedRecords = false
            try ctx.commit(store, changes, into: &world)
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Code"))
        },
        c("an update or delete naming another entity of the record's hierarchy throws and changes nothing") { ctx in
            // A Dog's key named as a Pet (its ancestor) and a Pet's named as a Dog: writes name the
            // concrete entity. Also for a delete the writer wants nothing back from, which a
            // store may carry out without reading the record first.
            var (store, world) = try ctx.seeded([Fixtures.pet(-1, "Tom", tag: 1)])
            let info = try ctx.commit(store, ChangeSet(inserts: [Fixtures.dog(-1, "Rex", tag: 2)]), into: &world)
            guard let pet = world.all.first(where: { $0.id.entity == "Pet" }), let dog = world.all.first(where: { $0.id.entity == "Dog" }) else {
                try ctx.fail("the stored Pet and Dog are missing")
            }
            // Each misnamed record in the shape of the entity it is named as.
            let misnamed = [
                (pet.id, Fixtures.dog(pet.id.key, "Renamed", tag: 1)), (dog.id, Fixtures.pet(dog.id.key, "Renamed", tag: 2)),
            ]
            let refused: (StorageError) -> Bool = { error in
                if case .conflict = error { return true }
                return isNotFound(error)
            }
            for (stored, update) in misnamed {
                let wrong = update.id
                try ctx.expectError("updating \(stored) as \(wrong)", matching: refused) {
                    _ = try store.write(ChangeSet(updates: [RecordUpdate(record: update, changedKeys: ["name"])]))
                }
                try ctx.expectError("deleting \(stored) as \(wrong)", matching: refused) {
                    _ = try store.write(ChangeSet(deletes: [wrong]))
                }
                // Nothing is committed in between: the writer's view is the store's last commit.
                var unread = ChangeSet(deletes: [wrong], baseSequence: info.sequence)
                unread.returnsDeletedRecords = false
                try ctx.expectError("deleting \(stored) as \(wrong), unread", matching: refused) { _ = try store.write(unread) }
            }
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Pet"))
        },
        c("keys are never reused after a delete") { ctx in
            var (store, world) = try ctx.seeded([Fixtures.pet(-1, "A"), Fixtures.pet(-2, "B")])
            let highest = world.all.map(\.id.key).max() ?? 0
            try ctx.commit(store, ChangeSet(deletes: world.all.map(\.id)), into: &world)
            let info = try ctx.commit(store, ChangeSet(inserts: [Fixtures.pet(-1, "C")]), into: &world)
            let key = info.permanentIDs.values.first?.key ?? 0
            try ctx.expect(key > highest, "new key \(key) is not above the deleted keys (highest \(highest))")
        },
        c("keys are unique across entities") { ctx in
            let (_, world) = try ctx.seeded(Fixtures.world() + [Fixtures.sample(-500, [:]), Fixtures.code(-501, "a", 1)])
            try ctx.expectEqual(world.records.count, Fixtures.world().count + 2, "records with distinct keys")
        },
        c("sequence grows with every commit") { ctx in
            let store = try ctx.openStore()
            var last: UInt64?
            for i in 0..<5 {
                let info = try store.write(ChangeSet(inserts: [Fixtures.pet(-1, "P\(i)")]))
                if let last { try ctx.expect(info.sequence > last, "commit \(i) has sequence \(info.sequence), not above \(last)") }
                last = info.sequence
            }
        },
        c("a thousand inserts in one commit") { ctx in
            let (store, world) = try ctx.seeded((1...1000).map { Fixtures.pet(-Int64($0), "pet \($0 % 37)", tag: Int64($0), weight: Double($0) / 3) })
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Pet"))
        },
        c("many small commits") { ctx in
            let store = try ctx.openStore()
            var world = World()
            for i in 1...100 { try ctx.commit(store, ChangeSet(inserts: [Fixtures.pet(-1, "p\(i)", tag: Int64(i))]), into: &world) }
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Pet"))
        },
        c("count agrees with fetch") { ctx in
            let (store, world) = try ctx.seeded(Fixtures.world())
            for entity in ["Person", "Pet", "Dog", "Sample"] {
                try ctx.expectEqual(try store.read { try $0.count(FetchRequest(entity: entity)) }, try world.reference(FetchRequest(entity: entity)).count, "count of \(entity)")
            }
        },
        c("counts without a predicate follow inserts and deletes, with and without subentities, in windows") { ctx in
            var (store, world) = try ctx.seeded(Fixtures.world())
            // Records that point to no record and that no record points to: deleting them
            // touches nothing else.
            let referenced = Set(world.records.values.flatMap { $0.relationships.flatMap { $0 } })
            let loose = world.all.filter { !referenced.contains($0.id) && $0.relationships.allSatisfy(\.isEmpty) }.map(\.id)
            try ctx.expect(!loose.isEmpty, "the world has records to delete alone")
            let inserts = (1...4).map { Fixtures.sample(-Int64(600 + $0), [:]) } + [Fixtures.dog(-701, "Newt", breed: "mutt"), Fixtures.dog(-702, "Nib")]
            try ctx.commit(store, ChangeSet(inserts: inserts, deletes: loose), into: &world)
            let newDogs = world.all.filter { $0.id.entity == "Dog" && !referenced.contains($0.id) && $0.relationships.allSatisfy(\.isEmpty) }
            let oneSample = world.all.filter { $0.id.entity == "Sample" }.prefix(1)
            try ctx.commit(store, ChangeSet(deletes: (newDogs.prefix(1) + oneSample).map(\.id)), into: &world)
            for entity in ["Person", "Pet", "Dog", "Sample"] {
                for includesSubentities in [true, false] {
                    for (offset, limit) in [(0, nil), (1, 2), (3, nil), (50, 1)] as [(Int, Int?)] {
                        let request = FetchRequest(entity: entity, includesSubentities: includesSubentities, limit: limit, offset: offset)
                        try ctx.expectEqual(try store.read { try $0.count(request) }, try world.reference(request).count,
                                            "count of \(entity) (subentities: \(includesSubentities), offset \(offset), limit \(limit.map(String.init) ?? "none"))")
                    }
                }
            }
        },
    ]
}
