import Foundation
import CoreStoreStorage

/// Aggregates and GROUP BY: the store's rows must equal ``AggregateEvaluator``'s (requirement 6).
enum AggregateCases {
    static func t(_ function: AggregateFunction, _ key: String) -> AggregateTerm { AggregateTerm(function, key) }

    static let table: [(String, AggregateRequest)] = [
        ("count of an integer", AggregateRequest(entity: "Person", terms: [t(.count, "age")])),
        ("sum of integers", AggregateRequest(entity: "Pet", terms: [t(.sum, "tag")])),
        ("average of integers", AggregateRequest(entity: "Pet", terms: [t(.average, "tag")])),
        ("minimum and maximum of integers", AggregateRequest(entity: "Person", terms: [t(.minimum, "age"), t(.maximum, "age")])),
        ("sum of doubles with NaN", AggregateRequest(entity: "Pet", terms: [t(.sum, "weight")])),
        ("average of doubles", AggregateRequest(entity: "Pet", predicate: .comparison(Comparison("weight", .less, .double(100))), terms: [t(.average, "weight")])),
        ("minimum and maximum skip NaN", AggregateRequest(entity: "Pet", terms: [t(.minimum, "weight"), t(.maximum, "weight")])),
        ("minimum and maximum of strings", AggregateRequest(entity: "Person", terms: [t(.minimum, "name"), t(.maximum, "name")])),
        ("count of strings with nil", AggregateRequest(entity: "Person", terms: [t(.count, "email")])),
        ("aggregates of no records", AggregateRequest(entity: "Pet", predicate: .constant(false), terms: [t(.count, "tag"), t(.sum, "tag"), t(.average, "weight"), t(.minimum, "name")])),
        ("aggregates with a predicate", AggregateRequest(entity: "Pet", predicate: .comparison(Comparison("name", .beginsWith, .string("R"))), terms: [t(.count, "tag"), t(.sum, "weight")])),
        ("only sub-entity", AggregateRequest(entity: "Pet", includesSubentities: false, terms: [t(.sum, "tag"), t(.count, "weight")])),
        ("group by one key", AggregateRequest(entity: "Person", terms: [t(.value, "age"), t(.count, "email")], groupBy: ["age"])),
        ("group by with nil group", AggregateRequest(entity: "Dog", terms: [t(.value, "breed"), t(.sum, "weight"), t(.average, "weight")], groupBy: ["breed"])),
        ("group by sorted descending", AggregateRequest(entity: "Person", terms: [t(.value, "age"), t(.maximum, "score")], groupBy: ["age"], sortDescriptors: [RecordSortDescriptor(key: "age", ascending: false)])),
        ("group by -0.0 and 0.0 together", AggregateRequest(entity: "Person", terms: [t(.value, "score"), t(.count, "name")], groupBy: ["score"])),
        ("group by two keys", AggregateRequest(entity: "Person", terms: [t(.value, "age"), t(.value, "score"), t(.count, "name")], groupBy: ["age", "score"])),
        ("group by with limit and offset", AggregateRequest(entity: "Person", terms: [t(.value, "age"), t(.count, "age")], groupBy: ["age"], limit: 2, offset: 1)),
        ("count per value of an indexed attribute, nil group included", AggregateRequest(entity: "Dog", terms: [t(.value, "breed"), t(.count, "breed"), t(.maximum, "breed")], groupBy: ["breed"], sortDescriptors: [RecordSortDescriptor(key: "breed", ascending: false)])),
        ("minimum and maximum within an IN list", AggregateRequest(entity: "Person", predicate: .comparison(Comparison(["age"], .in, .list([.int(1), .int(30), .int(41), .null]))), terms: [t(.minimum, "age"), t(.maximum, "age")])),
        ("minimum and maximum of an indexed string of a sub-entity", AggregateRequest(entity: "Dog", terms: [t(.minimum, "breed"), t(.maximum, "breed")])),
        ("ungrouped values in fetch order", AggregateRequest(entity: "Person", terms: [t(.value, "name"), t(.value, "age")], sortDescriptors: [RecordSortDescriptor(key: "age", ascending: true)])),
        ("count of a relationship per record", AggregateRequest(entity: "Person", terms: [t(.value, "name"), t(.count, "pets")])),
        ("ungrouped with limit", AggregateRequest(entity: "Pet", terms: [t(.value, "name")], limit: 3, offset: 2)),
    ]

    static let all: [ConformanceCase] = table.map { name, request in
        ConformanceCase(name, group: "aggregates") { ctx in
            let (store, world) = try ctx.seeded(Fixtures.world())
            try expectSameRows(ctx, store, world, request)
        }
    } + [
        ConformanceCase("sum overflow is an error", group: "aggregates") { ctx in
            let (store, _) = try ctx.seeded([Fixtures.pet(-1, "a", tag: Int64.max), Fixtures.pet(-2, "b", tag: 1)])
            try ctx.expectError("sum overflowing Int64") {
                _ = try store.read { try $0.aggregate(AggregateRequest(entity: "Pet", terms: [t(.sum, "tag")]), schema: Fixtures.schema) }
            }
        },
        ConformanceCase("double sums add in record-key order", group: "aggregates") { ctx in
            // Inserted out of key order, with totals that round differently in another order.
            let weights: [(key: Int64, breed: String, weight: Double)] = [
                (-3, "a", 1.0), (-1, "a", 1e16), (-6, "b", 0.1), (-4, "a", -1e16), (-2, "a", 1.0), (-5, "b", 0.2), (-7, "b", 0.3),
            ]
            let (store, world) = try ctx.seeded(weights.map { Fixtures.dog($0.key, "d\($0.key)", weight: $0.weight, breed: $0.breed) })
            try expectSameRows(ctx, store, world, AggregateRequest(entity: "Dog", terms: [t(.sum, "weight"), t(.average, "weight")]))
            try expectSameRows(ctx, store, world, AggregateRequest(entity: "Dog", terms: [t(.value, "breed"), t(.sum, "weight"), t(.average, "weight")], groupBy: ["breed"]))
        },
        ConformanceCase("double sums that no order rounds, beside ones that round", group: "aggregates") { ctx in
            // Per group, in key order: binary fractions whose magnitudes add up to less than
            // 2^37 (a backend may add them in any order), the same beside a decimal fraction,
            // and multiples of 2^-16 whose magnitudes reach 2^37: in key order 2^37 + 2^-16
            // rounds back to 2^37, twice, for a total of 0; with the first value moved last (an
            // update moves a row to the end of a PostgreSQL table, which an unindexed read
            // scans in place) the total is 2^-15. The groups are asked one at a time first, the
            // exact ones first: a store may remember an attribute whose sums failed its test and
            // stop trying any order for it.
            let groups: [(label: String, values: [Double])] = [
                ("a", [0.5, -3.75, 1024, 0x1p-16, 999.9990234375, -0.0]), ("d", [0x1p36, 0x1p36 - 0x1p-16, -1]),
                ("c", [0x1p37, 0x1p-16, 0x1p-16, -0x1p37]), ("b", [0.5, 0.1, -3.75]),
            ]
            var records: [Record] = []
            for group in groups {
                for value in group.values {
                    records.append(Fixtures.sample(-Int64(records.count + 1), ["str": .string(group.label), "dbl": .double(value)]))
                }
            }
            var (store, world) = try ctx.seeded(records)
            let dbl = Fixtures.sampleKeys.firstIndex(of: "dbl")!, int = Fixtures.sampleKeys.firstIndex(of: "int")!
            for record in world.records.values where record.attributes[dbl] == .double(0x1p37) || record.attributes[dbl] == .double(0.5) {
                var moved = record
                moved.attributes[int] = .int(1)
                try ctx.commit(store, ChangeSet(updates: [RecordUpdate(record: moved, changedKeys: ["int"])]), into: &world)
            }
            let terms = [t(.sum, "dbl"), t(.average, "dbl"), t(.count, "dbl")]
            for group in groups {
                let predicate = RecordPredicate.comparison(Comparison("str", .equal, .string(group.label)))
                try expectSameRows(ctx, store, world, AggregateRequest(entity: "Sample", predicate: predicate, terms: terms))
            }
            try expectSameRows(ctx, store, world, AggregateRequest(entity: "Sample", terms: [t(.value, "str")] + terms, groupBy: ["str"]))
            try expectSameRows(ctx, store, world, AggregateRequest(entity: "Sample", terms: terms))
        },
        ConformanceCase("double sums at the limits", group: "aggregates") { ctx in
            // Per breed: a total that overflows to infinity, negative zeros only, infinities of
            // both signs (NaN), an average that underflows to zero, the largest finite value
            // beside an infinity.
            let groups: [(breed: String, weights: [Double])] = [
                ("a", [1e308, 1e308, -1e308]), ("b", [-0.0, -0.0]), ("c", [.infinity, -.infinity]),
                ("d", [Double.leastNonzeroMagnitude, 0.0]), ("e", [.greatestFiniteMagnitude, -.infinity]),
            ]
            var records: [Record] = []
            for group in groups {
                for weight in group.weights {
                    records.append(Fixtures.dog(-Int64(records.count + 1), "d\(records.count)", weight: weight, breed: group.breed))
                }
            }
            let (store, world) = try ctx.seeded(records)
            let terms = [t(.sum, "weight"), t(.average, "weight"), t(.count, "weight")]
            try expectSameRows(ctx, store, world, AggregateRequest(entity: "Dog", terms: [t(.value, "breed")] + terms, groupBy: ["breed"]))
            for group in groups {
                let predicate = RecordPredicate.comparison(Comparison("breed", .equal, .string(group.breed)))
                try expectSameRows(ctx, store, world, AggregateRequest(entity: "Dog", predicate: predicate, terms: terms))
            }
        },
        ConformanceCase("whole-entity counts, sums and averages follow inserts, updates and deletes", group: "aggregates") { ctx in
            // A store may keep running totals instead of scanning: after every kind of change,
            // and with values that no order rounds as with ones that round (0.1, 1e20, NaN),
            // the answers over all records stay the evaluator's.
            var records: [Record] = []
            for n in 1...12 {
                let key = -Int64(n)
                if n % 3 == 0 {
                    records.append(Fixtures.dog(key, "d\(n)", tag: Int64(n * 5), weight: Double(n) / 4, breed: "b"))
                } else {
                    let tag: Int64? = n % 4 == 0 ? nil : key
                    let weight: Double? = n % 5 == 0 ? nil : Double(n) * 1.5
                    records.append(Fixtures.pet(key, "p\(n)", tag: tag, weight: weight))
                }
            }
            var (store, world) = try ctx.seeded(records)
            let terms = [t(.count, "tag"), t(.sum, "tag"), t(.average, "tag"), t(.count, "weight"), t(.sum, "weight"), t(.average, "weight")]
            func expectAll() throws {
                try expectSameRows(ctx, store, world, AggregateRequest(entity: "Pet", terms: terms))
                try expectSameRows(ctx, store, world, AggregateRequest(entity: "Pet", includesSubentities: false, terms: terms))
                try expectSameRows(ctx, store, world, AggregateRequest(entity: "Dog", terms: terms))
            }
            try expectAll()
            for (step, weight) in [0.1, 1e20, .nan, 2.5].enumerated() {
                let all = world.all
                var changed = all[step]
                changed.attributes[2] = .double(weight)
                try ctx.commit(store, ChangeSet(updates: [RecordUpdate(record: changed, changedKeys: ["weight"])]), into: &world)
                try expectAll()
                try ctx.commit(store, ChangeSet(deletes: [all[all.count - 1 - step].id]), into: &world)
                try expectAll()
                try ctx.commit(store, ChangeSet(inserts: [Fixtures.dog(-1, "new\(step)", tag: 1_000 + Int64(step), weight: -0.75, breed: "n")]), into: &world)
                try expectAll()
            }
        },
        ConformanceCase("sum of a string is an error", group: "aggregates") { ctx in
            let (store, _) = try ctx.seeded(Fixtures.world())
            try ctx.expectError("sum of name") {
                _ = try store.read { try $0.aggregate(AggregateRequest(entity: "Pet", terms: [t(.sum, "name")]), schema: Fixtures.schema) }
            }
        },
        ConformanceCase("every sample kind min and max", group: "aggregates") { ctx in
            let values = ValueCases.roundTrips.filter { $0.0 != "16 MiB bytes" && $0.0 != "1 MiB string" }
            let (store, world) = try ctx.seeded(values.enumerated().map { Fixtures.sample(-Int64($0.offset + 1), [$0.element.1: $0.element.2]) })
            for key in Fixtures.sampleKeys {
                try expectSameRows(ctx, store, world, AggregateRequest(entity: "Sample", terms: [t(.minimum, key), t(.maximum, key), t(.count, key)]))
            }
        },
    ]

    static func expectSameRows(_ ctx: ConformanceContext, _ store: any StorageInterface, _ world: World, _ request: AggregateRequest) throws {
        let expected = try world.referenceRows(request)
        let actual = try store.read { try $0.aggregate(request, schema: Fixtures.schema) }
        try ctx.expectEqual(actual, expected, "aggregate rows")
    }
}
