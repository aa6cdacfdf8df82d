import Foundation
import CoreStoreStorage

/// Every operator, modifier, nil rule, compound and relationship path: the store's answer must
/// equal ``PredicateEvaluator``'s over the same records (requirement 5).
enum PredicateCases {
    static func cmp(_ key: String, _ op: ComparisonOperator, _ value: Value, _ options: StringComparisonOptions = []) -> RecordPredicate {
        .comparison(Comparison(key, op, value, options: options))
    }

    static func list(_ key: String, _ op: ComparisonOperator, _ values: [Value], _ options: StringComparisonOptions = []) -> RecordPredicate {
        .comparison(Comparison([key], op, .list(values), options: options))
    }

    static func path(_ keys: [String], _ op: ComparisonOperator, _ value: Value, _ quantifier: Quantifier = .any,
                     options: StringComparisonOptions = [], function: KeyPathFunction? = nil) -> RecordPredicate {
        .comparison(Comparison(keys, op, .value(value), options: options, quantifier: quantifier, function: function))
    }

    static let ci: StringComparisonOptions = .caseInsensitive
    static let di: StringComparisonOptions = .diacriticInsensitive
    static let cdi: StringComparisonOptions = [.caseInsensitive, .diacriticInsensitive]

    /// (name, entity, predicate): each compared with the reference.
    static let table: [(String, String, RecordPredicate)] = [
        ("int ==", "Person", cmp("age", .equal, .int(31))),
        ("int !=", "Person", cmp("age", .notEqual, .int(31))),
        ("int <", "Person", cmp("age", .less, .int(31))),
        ("int <=", "Person", cmp("age", .lessOrEqual, .int(31))),
        ("int >", "Person", cmp("age", .greater, .int(25))),
        ("int >=", "Person", cmp("age", .greaterOrEqual, .int(25))),
        ("int compared with a double", "Person", cmp("age", .equal, .double(31.0))),
        ("int compared with 31.5", "Person", cmp("age", .less, .double(31.5))),
        ("int compared with a decimal", "Person", cmp("age", .greaterOrEqual, .decimal(Decimal(string: "30.5") ?? 0))),
        ("Int64.max exactly, not rounded", "Person", cmp("age", .equal, .int(Int64.max))),
        ("Int64.max against 2^63 as a double", "Person", cmp("age", .less, .double(9.223372036854775808e18))),
        ("== nil", "Person", cmp("age", .equal, .null)),
        ("!= nil", "Person", cmp("age", .notEqual, .null)),
        ("!= keeps nil", "Person", cmp("email", .notEqual, .string("ann@x"))),
        ("< nil is false", "Person", cmp("age", .less, .null)),
        ("ordering never keeps nil", "Person", cmp("age", .greaterOrEqual, .int(Int64.min))),
        ("double == -0.0 matches 0.0", "Person", cmp("score", .equal, .double(-0.0))),
        ("double == NaN keeps nothing", "Person", cmp("score", .equal, .double(.nan))),
        ("double != NaN keeps everything", "Person", cmp("score", .notEqual, .double(.nan))),
        ("double > NaN keeps nothing", "Person", cmp("score", .greater, .double(.nan))),
        ("double < infinity", "Person", cmp("score", .less, .double(.infinity))),
        ("double >= -infinity", "Person", cmp("score", .greaterOrEqual, .double(-.infinity))),
        ("different kinds are never equal", "Person", cmp("name", .equal, .int(1))),
        ("different kinds are never ordered", "Person", cmp("age", .less, .string("z"))),
        ("string == is binary", "Person", cmp("name", .equal, .string("ann"))),
        ("string ==[c]", "Person", cmp("name", .equal, .string("ann"), ci)),
        ("string ==[d]", "Person", cmp("name", .equal, .string("Zoe"), di)),
        ("string ==[cd]", "Person", cmp("name", .equal, .string("zoe"), cdi)),
        ("string ==[cd] of uppercase accented", "Person", cmp("name", .equal, .string("emile"), cdi)),
        ("NFC == does not match NFD", "Person", cmp("name", .equal, .string("Zo\u{EB}"))),
        ("string < is UTF-8 order", "Person", cmp("name", .less, .string("a"))),
        ("string >[c]", "Person", cmp("name", .greater, .string("b"), ci)),
        ("string with NUL ==", "Person", cmp("name", .equal, .string("Cy\u{0}z"))),
        ("empty string ==", "Person", cmp("name", .equal, .string(""))),
        ("BEGINSWITH", "Person", cmp("name", .beginsWith, .string("A"))),
        ("BEGINSWITH[c]", "Person", cmp("name", .beginsWith, .string("a"), ci)),
        ("BEGINSWITH[cd]", "Person", cmp("name", .beginsWith, .string("e"), cdi)),
        ("ENDSWITH", "Person", cmp("email", .endsWith, .string("@x"))),
        ("ENDSWITH[c]", "Person", cmp("email", .endsWith, .string("@X"), ci)),
        ("CONTAINS", "Person", cmp("name", .contains, .string("o"))),
        ("CONTAINS[d]", "Person", cmp("name", .contains, .string("oe"), di)),
        ("CONTAINS empty string", "Person", cmp("email", .contains, .string(""))),
        ("CONTAINS a NUL", "Person", cmp("name", .contains, .string("\u{0}"))),
        ("LIKE with *", "Person", cmp("email", .like, .string("*@x"))),
        ("LIKE with ?", "Person", cmp("name", .like, .string("?ob"))),
        ("LIKE[c]", "Person", cmp("name", .like, .string("A*"), ci)),
        ("LIKE without wildcards is equality", "Person", cmp("name", .like, .string("Bob"))),
        ("LIKE with SQL wildcards is literal", "Person", cmp("email", .like, .string("%@x"))),
        ("MATCHES", "Person", cmp("name", .matches, .string("[A-Z][a-z]+"))),
        ("MATCHES must match the whole string", "Person", cmp("name", .matches, .string("o"))),
        ("MATCHES[c]", "Person", cmp("name", .matches, .string("b.b"), ci)),
        ("IN", "Person", list("age", .in, [.int(25), .int(40), .null])),
        ("IN of strings[c]", "Person", list("name", .in, [.string("BOB"), .string("dee")], ci)),
        ("IN {}", "Person", list("age", .in, [])),
        ("BETWEEN includes both bounds", "Person", list("age", .between, [.int(25), .int(31)])),
        ("BETWEEN doubles", "Pet", list("weight", .between, [.double(1), .double(10)])),
        ("BETWEEN strings", "Person", list("name", .between, [.string("B"), .string("Z")])),
        ("BETWEEN doubles skips nil and NaN", "Person", list("score", .between, [.double(-.infinity), .double(.infinity)])),
        ("NOT BETWEEN doubles keeps nil and NaN", "Person", .not(list("score", .between, [.double(0), .double(10)]))),
        ("a range of doubles skips nil and NaN", "Person", cmp("score", .greaterOrEqual, .double(-.infinity)) && cmp("score", .lessOrEqual, .double(.infinity))),
        ("an open range, upper bound first", "Person", cmp("score", .less, .double(5)) && cmp("score", .greater, .double(0))),
        ("a half-open range of integers", "Person", cmp("age", .greaterOrEqual, .int(25)) && cmp("age", .less, .int(40))),
        ("a range of strings", "Person", cmp("name", .greaterOrEqual, .string("B")) && cmp("name", .less, .string("Z"))),
        ("two ranges interleaved", "Person", .and([cmp("score", .greater, .double(-1)), cmp("age", .greater, .int(20)), cmp("score", .lessOrEqual, .double(3)), cmp("age", .less, .int(40))])),
        ("a range with a NaN bound keeps nothing", "Person", cmp("score", .greaterOrEqual, .double(0)) && cmp("score", .lessOrEqual, .double(.nan))),
        ("a range of mixed kinds keeps nothing", "Person", cmp("age", .greaterOrEqual, .int(0)) && cmp("age", .lessOrEqual, .string("z"))),
        ("a range inside OR", "Person", .or([cmp("score", .greaterOrEqual, .double(1)) && cmp("score", .lessOrEqual, .double(3)), cmp("age", .equal, .null)])),
        ("NOT of a range keeps nil and NaN", "Person", .not(cmp("score", .greaterOrEqual, .double(0)) && cmp("score", .lessOrEqual, .double(10)))),
        ("AND", "Person", cmp("age", .greater, .int(20)) && cmp("name", .beginsWith, .string("A"))),
        ("OR", "Person", cmp("age", .equal, .null) || cmp("score", .equal, .double(2.5))),
        ("NOT", "Person", !cmp("age", .greater, .int(30))),
        ("NOT of an ordering keeps nil", "Person", .not(cmp("age", .less, .int(100)))),
        ("nested AND/OR/NOT", "Person", .or([.and([cmp("age", .greater, .int(0)), .not(cmp("email", .endsWith, .string("@x")))]), cmp("name", .equal, .string("Dee"))])),
        ("empty AND is true", "Person", .and([])),
        ("empty OR is false", "Person", .or([])),
        ("TRUEPREDICATE", "Pet", .constant(true)),
        ("FALSEPREDICATE", "Pet", .constant(false)),
        ("bool attribute", "Pet", cmp("tag", .greater, .bool(true))),
        ("sub-entity attribute through the parent", "Dog", cmp("breed", .equal, .string("lab"))),
        ("parent entity predicate includes sub-entities", "Pet", cmp("name", .equal, .string("Rex"))),
        ("to-one path", "Pet", path(["owner", "name"], .equal, .string("Ann"))),
        ("to-one path without destination == nil", "Pet", path(["owner", "name"], .equal, .null)),
        ("to-one path ordering", "Pet", path(["owner", "age"], .greater, .int(30))),
        ("ANY to-many path", "Person", path(["pets", "name"], .equal, .string("Rex"))),
        ("ANY to-many path[c]", "Person", path(["pets", "name"], .equal, .string("rex"), options: ci)),
        ("ALL to-many path", "Person", path(["pets", "weight"], .greater, .double(3), .all)),
        ("NONE to-many path", "Person", path(["pets", "weight"], .greater, .double(9), .none)),
        ("two-hop path", "Pet", path(["owner", "friends", "name"], .equal, .string("Bob"))),
        ("two to-many hops", "Person", path(["friends", "pets", "name"], .beginsWith, .string("R"))),
        ("@count ==", "Person", path(["pets"], .equal, .int(0), function: .count)),
        ("@count >", "Person", path(["pets"], .greater, .int(1), function: .count)),
        ("@count of an ordered to-many", "Person", path(["friends"], .greaterOrEqual, .int(2), function: .count)),
        ("@count through a to-one", "Pet", path(["owner", "pets"], .greater, .int(2), function: .count)),
        ("relationship == nil", "Pet", path(["owner"], .equal, .null)),
        ("relationship != nil", "Person", path(["pets"], .notEqual, .null)),
    ]

    static let all: [ConformanceCase] = table.map { name, entity, predicate in
        ConformanceCase(name, group: "predicates") { ctx in
            let (store, world) = try ctx.seeded(Fixtures.world())
            try ctx.expectSameFetch(store, world, FetchRequest(entity: entity, predicate: predicate))
        }
    } + [
        ConformanceCase("relationship == object", group: "predicates") { ctx in
            let (store, world) = try ctx.seeded(Fixtures.world())
            let ann = world.all[0].id
            let request = FetchRequest(entity: "Pet", predicate: .comparison(Comparison(["owner"], .equal, .records([ann]))))
            try ctx.expectSameFetch(store, world, request)
            try ctx.expectEqual(try ctx.fetch(store, request).count, 3, "pets owned by Ann")
        },
        // What a store reads for an object of another store: the framework leaves the list empty.
        ConformanceCase("relationship compared with no objects", group: "predicates") { ctx in
            let (store, world) = try ctx.seeded(Fixtures.world())
            let pets = try ctx.fetch(store, FetchRequest(entity: "Pet")).count
            let people = try ctx.fetch(store, FetchRequest(entity: "Person")).count
            for (entity, key, op, expected) in [("Pet", "owner", ComparisonOperator.equal, 0), ("Pet", "owner", .notEqual, pets), ("Pet", "owner", .in, 0),
                                                ("Person", "pets", .equal, 0), ("Person", "pets", .notEqual, people), ("Person", "pets", .in, 0)] {
                let request = FetchRequest(entity: entity, predicate: .comparison(Comparison([key], op, .records([]))))
                try ctx.expectSameFetch(store, world, request)
                try ctx.expectEqual(try ctx.fetch(store, request).count, expected, "\(entity) where \(key) \(op.rawValue) no objects")
            }
        },
        ConformanceCase("to-many IN objects", group: "predicates") { ctx in
            let (store, world) = try ctx.seeded(Fixtures.world())
            let pets = world.all.filter { $0.id.entity != "Person" }.prefix(3).map(\.id)
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Person", predicate: .comparison(Comparison(["pets"], .in, .records(Array(pets))))))
        },
        ConformanceCase("exact answer: ==[c] \"ann\"", group: "predicates") { ctx in
            let (store, _) = try ctx.seeded(Fixtures.world())
            let names = try ctx.fetch(store, FetchRequest(entity: "Person", predicate: cmp("name", .equal, .string("ANN"), ci))).map(\.attributes[0])
            try ctx.expectEqual(names, [.string("Ann"), .string("ann")], "names ==[c] ANN")
        },
        ConformanceCase("exact answer: ==[cd] \"zoe\" finds NFC and NFD", group: "predicates") { ctx in
            let (store, _) = try ctx.seeded(Fixtures.world())
            let names = try ctx.fetch(store, FetchRequest(entity: "Person", predicate: cmp("name", .equal, .string("zoe"), cdi))).map(\.attributes[0])
            try ctx.expectEqual(names, [.string("Zo\u{EB}"), .string("Zoe\u{301}")], "names ==[cd] zoe")
        },
        ConformanceCase("exact answer: score != NaN keeps nil and NaN", group: "predicates") { ctx in
            let (store, _) = try ctx.seeded(Fixtures.world())
            try ctx.expectEqual(try ctx.fetch(store, FetchRequest(entity: "Person", predicate: cmp("score", .notEqual, .double(.nan)))).count, 10, "people with score != NaN")
        },
        ConformanceCase("exact answer: pets.@count == 0", group: "predicates") { ctx in
            let (store, _) = try ctx.seeded(Fixtures.world())
            let names = try ctx.fetch(store, FetchRequest(entity: "Person", predicate: path(["pets"], .equal, .int(0), function: .count))).map(\.attributes[0])
            try ctx.expectEqual(names, [.string("ann"), .string(""), .string("Cy\u{0}z")], "people without pets")
        },
    ]
}
