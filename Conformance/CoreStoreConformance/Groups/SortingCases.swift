import Foundation
import CoreStoreStorage

/// Sort keys, nil placement, UTF-8 string order, ties by key, offset and limit (requirement 5).
enum SortingCases {
    static func asc(_ key: String) -> RecordSortDescriptor { RecordSortDescriptor(key: key, ascending: true) }
    static func desc(_ key: String) -> RecordSortDescriptor { RecordSortDescriptor(key: key, ascending: false) }

    /// (name, request): each compared with the reference.
    static let table: [(String, FetchRequest)] = [
        ("int ascending, nil first", FetchRequest(entity: "Person", sortDescriptors: [asc("age")])),
        ("int descending, nil last", FetchRequest(entity: "Person", sortDescriptors: [desc("age")])),
        ("double ascending with NaN, -0.0 and infinities", FetchRequest(entity: "Person", sortDescriptors: [asc("score")])),
        ("double descending", FetchRequest(entity: "Person", sortDescriptors: [desc("score")])),
        ("strings in UTF-8 order", FetchRequest(entity: "Person", sortDescriptors: [asc("name")])),
        ("strings descending", FetchRequest(entity: "Person", sortDescriptors: [desc("name")])),
        ("optional strings with nil", FetchRequest(entity: "Person", sortDescriptors: [asc("email")])),
        ("two keys", FetchRequest(entity: "Person", sortDescriptors: [asc("age"), desc("name")])),
        ("three keys", FetchRequest(entity: "Person", sortDescriptors: [desc("score"), asc("age"), asc("name")])),
        ("ties broken by key", FetchRequest(entity: "Person", sortDescriptors: [asc("score")])),
        ("sub-entities sorted together", FetchRequest(entity: "Pet", sortDescriptors: [asc("name")])),
        ("sub-entity key", FetchRequest(entity: "Dog", sortDescriptors: [desc("breed"), asc("weight")])),
        ("sorted and filtered", FetchRequest(entity: "Pet", predicate: .comparison(Comparison("weight", .greater, .double(2))), sortDescriptors: [desc("weight")])),
        ("limit", FetchRequest(entity: "Person", sortDescriptors: [asc("name")], limit: 3)),
        ("offset", FetchRequest(entity: "Person", sortDescriptors: [asc("name")], offset: 4)),
        ("offset and limit", FetchRequest(entity: "Person", sortDescriptors: [desc("age")], limit: 3, offset: 2)),
        ("limit 0 returns nothing", FetchRequest(entity: "Person", limit: 0)),
        ("offset beyond the end", FetchRequest(entity: "Person", sortDescriptors: [asc("age")], offset: 100)),
        ("limit beyond the end", FetchRequest(entity: "Person", limit: 1000, offset: 8)),
        ("window without sort keys", FetchRequest(entity: "Pet", limit: 4, offset: 3)),
        ("window after filtering", FetchRequest(entity: "Pet", predicate: .comparison(Comparison("tag", .notEqual, .null)), sortDescriptors: [asc("name")], limit: 5, offset: 1)),
    ]

    static let all: [ConformanceCase] = table.map { name, request in
        ConformanceCase(name, group: "sorting") { ctx in
            let (store, world) = try ctx.seeded(Fixtures.world())
            try ctx.expectSameFetch(store, world, request)
        }
    } + [
        ConformanceCase("sorting every value kind", group: "sorting") { ctx in
            let values = ValueCases.roundTrips.filter { $0.0 != "16 MiB bytes" && $0.0 != "1 MiB string" }
            let (store, world) = try ctx.seeded(values.enumerated().map { Fixtures.sample(-Int64($0.offset + 1), [$0.element.1: $0.element.2]) })
            for key in Fixtures.sampleKeys {
                try ctx.expectSameFetch(store, world, FetchRequest(entity: "Sample", sortDescriptors: [asc(key)]))
                try ctx.expectSameFetch(store, world, FetchRequest(entity: "Sample", sortDescriptors: [desc(key)]))
            }
        },
        ConformanceCase("every window over tied values", group: "sorting") { ctx in
            // Equal ages, scores (0.0 and -0.0), nil and names across sub-entities, cut at every
            // offset and limit: which tied records a window keeps depends on their keys alone.
            let (store, world) = try ctx.seeded(Fixtures.world())
            let sorts: [(String, [RecordSortDescriptor])] = [
                ("Person", [asc("age")]), ("Person", [desc("age")]), ("Person", [asc("score")]),
                ("Person", [desc("score"), desc("age")]), ("Pet", [asc("name")]), ("Pet", [desc("tag")]),
            ]
            for (entity, sortDescriptors) in sorts {
                for offset in 0...8 {
                    for limit in 1...4 {
                        try ctx.expectSameFetch(store, world, FetchRequest(entity: entity, sortDescriptors: sortDescriptors, limit: limit, offset: offset))
                    }
                }
            }
        },
        ConformanceCase("exact answer: names in UTF-8 order", group: "sorting") { ctx in
            let (store, _) = try ctx.seeded(Fixtures.world())
            let names = try ctx.fetch(store, FetchRequest(entity: "Person", sortDescriptors: [asc("name")])).map(\.attributes[0])
            let expected: [Value] = ["", "Ann", "Bob", "Cy\u{0}z", "Dee", "Zoe\u{301}", "Zo\u{EB}", "ann", "bob", "ÉMILE"].map { .string($0) }
            try ctx.expectEqual(names, expected, "names sorted ascending")
        },
        ConformanceCase("exact answer: integers with extremes descending", group: "sorting") { ctx in
            let (store, _) = try ctx.seeded(Fixtures.world())
            let ages = try ctx.fetch(store, FetchRequest(entity: "Person", sortDescriptors: [desc("age")])).map(\.attributes[1])
            let expected: [Value] = [.int(.max), .int(40), .int(31), .int(31), .int(25), .int(25), .int(0), .int(-5), .int(.min), .null]
            try ctx.expectEqual(ages, expected, "ages sorted descending")
        },
    ]
}
