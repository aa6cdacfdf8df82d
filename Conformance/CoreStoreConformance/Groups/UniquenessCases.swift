import Foundation
import CoreStoreStorage

/// Unique constraints hold after every write; nil never collides (requirement 4).
enum UniquenessCases {
    static func c(_ name: String, _ body: @escaping @Sendable (ConformanceContext) throws -> Void) -> ConformanceCase {
        ConformanceCase(name, group: "uniqueness", body: body)
    }

    static let all: [ConformanceCase] = [
        c("a duplicate insert throws uniqueConstraintViolation with entity, attributes and values") { ctx in
            let (store, _) = try ctx.seeded(Fixtures.world())
            let error = try ctx.expectError("inserting a second ann@x") {
                _ = try store.write(ChangeSet(inserts: [Fixtures.person(-1, "Other", email: "ann@x")]))
            }
            try ctx.expectEqual(error, StorageError.uniqueConstraintViolation(entity: "Person", attributes: ["email"], values: [.string("ann@x")]), "the error")
        },
        c("a sub-entity collision names the declaring entity") { ctx in
            let (store, _) = try ctx.seeded(Fixtures.world())
            let error = try ctx.expectError("inserting a dog with pet tag 1") { _ = try store.write(ChangeSet(inserts: [Fixtures.dog(-1, "Clone", tag: 1)])) }
            try ctx.expectEqual(error, StorageError.uniqueConstraintViolation(entity: "Pet", attributes: ["tag"], values: [.int(1)]), "the error")
        },
        c("a compound constraint only collides on all attributes") { ctx in
            var (store, world) = try ctx.seeded([Fixtures.code(-1, "a", 1)])
            try ctx.commit(store, ChangeSet(inserts: [Fixtures.code(-1, "a", 2), Fixtures.code(-2, "b", 1)]), into: &world)
            let error = try ctx.expectError("inserting (a, 1) again") { _ = try store.write(ChangeSet(inserts: [Fixtures.code(-1, "a", 1)])) }
            try ctx.expectEqual(error, StorageError.uniqueConstraintViolation(entity: "Code", attributes: ["a", "b"], values: [.string("a"), .int(1)]), "the error")
        },
        c("nil never collides") { ctx in
            var (store, world) = try ctx.seeded([Fixtures.person(-1, "A"), Fixtures.person(-2, "B"), Fixtures.code(-3, nil, nil), Fixtures.code(-4, nil, nil)])
            try ctx.commit(store, ChangeSet(inserts: [Fixtures.person(-1, "C"), Fixtures.code(-2, "x", nil), Fixtures.code(-3, "x", nil)]), into: &world)
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Code"))
        },
        c("two values swapped in one change set") { ctx in
            var (store, world) = try ctx.seeded([Fixtures.person(-1, "A", email: "a@x"), Fixtures.person(-2, "B", email: "b@x")])
            var a = world.all[0], b = world.all[1]
            a.attributes[2] = .string("b@x")
            b.attributes[2] = .string("a@x")
            try ctx.commit(store, ChangeSet(updates: [RecordUpdate(record: a, changedKeys: ["email"]), RecordUpdate(record: b, changedKeys: ["email"])]), into: &world)
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Person"))
        },
        c("a deleted value can be reused in the same change set") { ctx in
            var (store, world) = try ctx.seeded([Fixtures.person(-1, "A", email: "a@x")])
            try ctx.commit(store, ChangeSet(inserts: [Fixtures.person(-1, "A2", email: "a@x")], deletes: [world.all[0].id]), into: &world)
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Person"))
        },
        c("a deleted value can be reused later") { ctx in
            var (store, world) = try ctx.seeded([Fixtures.pet(-1, "A", tag: 42)])
            try ctx.commit(store, ChangeSet(deletes: [world.all[0].id]), into: &world)
            try ctx.commit(store, ChangeSet(inserts: [Fixtures.dog(-1, "B", tag: 42)]), into: &world)
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Pet"))
        },
        c("uniqueness is binary: NFC and NFD, case differ") { ctx in
            let (store, world) = try ctx.seeded([Fixtures.code(-1, "\u{E9}", 1), Fixtures.code(-2, "e\u{301}", 1), Fixtures.code(-3, "E\u{301}", 1)])
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Code"))
        },
        c("a hundred updates rotating unique values and moving indexed ones commit in one change set") { ctx in
            // Enough updates that a store may order its index writes (key-value stores sort from
            // 64 on): every entry must still be replaced exactly.
            var (store, world) = try ctx.seeded((1...100).map { Fixtures.person(-Int64($0), "P\($0)", age: Int64($0 % 7), email: "p\($0)@x") })
            let updates = world.all.enumerated().map { i, record in
                var record = record
                record.attributes[0] = .string("Q\((i * 37) % 100)")
                record.attributes[1] = .int(Int64((i * 5) % 11))
                record.attributes[2] = .string("p\((i + 1) % 100 + 1)@x")
                return RecordUpdate(record: record, changedKeys: ["name", "age", "email"])
            }
            try ctx.commit(store, ChangeSet(updates: updates), into: &world)
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Person"))
            for age in Int64(0)..<11 {
                try ctx.expectSameFetch(store, world, FetchRequest(entity: "Person", predicate: .comparison(Comparison(["age"], .equal, .value(.int(age))))))
            }
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Person", predicate: .comparison(Comparison(["name"], .beginsWith, .value(.string("Q1"))))))
        },
        c("among a hundred updates, the collision reported is the first in the change set's order") { ctx in
            let (store, world) = try ctx.seeded((1...102).map { Fixtures.person(-Int64($0), "P\($0)", age: Int64($0 % 7), email: "p\($0)@x") })
            // Records 101 and 102 keep their values; updates 40 and 70 take them.
            let updates = world.all.prefix(100).enumerated().map { i, record in
                var record = record
                record.attributes[1] = .int(Int64(i % 5) + 100)
                record.attributes[2] = .string(i == 40 ? "p102@x" : i == 70 ? "p101@x" : "new\(i)@x")
                return RecordUpdate(record: record, changedKeys: ["age", "email"])
            }
            let error = try ctx.expectError("taking two kept values") { _ = try store.write(ChangeSet(updates: updates)) }
            try ctx.expectEqual(error, StorageError.uniqueConstraintViolation(entity: "Person", attributes: ["email"], values: [.string("p102@x")]), "the error")
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Person"))
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Person", predicate: .comparison(Comparison(["age"], .greaterOrEqual, .value(.int(100))))))
        },
        c("among a hundred inserts, the collision reported is the first in the change set's order, and none is written") { ctx in
            // Enough inserts that a store may write them in batches: the error must still name
            // the first insert that collides, and the change set must leave nothing behind.
            let (store, world) = try ctx.seeded([Fixtures.person(-1, "Kept1", email: "kept1@x"), Fixtures.person(-2, "Kept2", email: "kept2@x")])
            let inserts = (1...100).map { (i: Int) -> Record in
                let email: String = i == 40 ? "kept2@x" : i == 70 ? "kept1@x" : "n\(i)@x"
                return Fixtures.person(-Int64(i), "N\(i)", age: Int64(i % 9), email: email)
            }
            let error = try ctx.expectError("inserting two taken values") { _ = try store.write(ChangeSet(inserts: inserts)) }
            try ctx.expectEqual(error, StorageError.uniqueConstraintViolation(entity: "Person", attributes: ["email"], values: [.string("kept2@x")]), "the error")
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Person"))
        },
        c("two inserts of one change set sharing a unique value collide") { ctx in
            let (store, world) = try ctx.seeded([Fixtures.person(-1, "Kept", email: "kept@x")])
            let inserts = (1...100).map { (i: Int) -> Record in
                let email: String = i == 30 || i == 80 ? "twin@x" : "n\(i)@x"
                return Fixtures.person(-Int64(i), "N\(i)", email: email)
            }
            let error = try ctx.expectError("inserting twin@x twice") { _ = try store.write(ChangeSet(inserts: inserts)) }
            try ctx.expectEqual(error, StorageError.uniqueConstraintViolation(entity: "Person", attributes: ["email"], values: [.string("twin@x")]), "the error")
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Person"))
        },
        c("inserts in runs of every length, entities interleaved, are all written") { ctx in
            var (store, world) = try ctx.seeded([])
            // Runs of 1, 63, 64, 65 and 129 records of one entity between records of others.
            var inserts: [Record] = []
            var next: Int64 = 1
            for (run, length) in [1, 63, 64, 65, 129].enumerated() {
                for i in 0..<length {
                    inserts.append(Fixtures.person(-next, "R\(run)-\(i)", age: Int64(i % 13), email: "r\(run)-\(i)@x"))
                    next += 1
                }
                inserts.append(Fixtures.code(-next, "c\(run)", Int64(run)))
                next += 1
            }
            try ctx.commit(store, ChangeSet(inserts: inserts), into: &world)
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Person"))
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Code"))
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Person", predicate: .comparison(Comparison(["age"], .equal, .value(.int(12))))))
        },
        c("an update keeping its own value does not collide") { ctx in
            var (store, world) = try ctx.seeded([Fixtures.person(-1, "A", email: "a@x")])
            var a = world.all[0]
            a.attributes[0] = .string("Renamed")
            try ctx.commit(store, ChangeSet(updates: [RecordUpdate(record: a, changedKeys: ["name"])]), into: &world)
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Person"))
        },
    ]
}
