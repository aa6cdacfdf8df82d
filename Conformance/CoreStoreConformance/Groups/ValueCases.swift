import Foundation
import CoreStoreStorage

/// Every storable value and its edges survive write → read bit-exactly.
enum ValueCases {
    static func date(_ year: Int, _ month: Int = 1, _ day: Int = 1) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar.date(from: DateComponents(year: year, month: month, day: day)) ?? Date(timeIntervalSince1970: 0)
    }

    static let roundTrips: [(String, String, Value)] = [
        ("bool true", "flag", .bool(true)),
        ("bool false", "flag", .bool(false)),
        ("int 0", "int", .int(0)),
        ("int -1", "int", .int(-1)),
        ("Int64.min", "int", .int(Int64.min)),
        ("Int64.max", "int", .int(Int64.max)),
        ("2^53 + 1", "int", .int(9_007_199_254_740_993)),
        ("double 0.0", "dbl", .double(0.0)),
        ("double -0.0", "dbl", .double(-0.0)),
        ("double +infinity", "dbl", .double(.infinity)),
        ("double -infinity", "dbl", .double(-.infinity)),
        ("double NaN", "dbl", .double(.nan)),
        ("double 0.1", "dbl", .double(0.1)),
        ("double least nonzero (subnormal)", "dbl", .double(.leastNonzeroMagnitude)),
        ("double greatest finite", "dbl", .double(.greatestFiniteMagnitude)),
        ("double -1e-300", "dbl", .double(-1e-300)),
        ("decimal 0", "dec", .decimal(0)),
        ("decimal 123.456", "dec", .decimal(Decimal(string: "123.456") ?? 0)),
        ("decimal -0.000000000000000000001", "dec", .decimal(Decimal(string: "-0.000000000000000000001") ?? 0)),
        ("decimal 38 digits", "dec", .decimal(Decimal(string: "12345678901234567890123456789012345678") ?? 0)),
        ("decimal UInt64.max", "dec", .decimal(Decimal(UInt64.max))),
        ("empty string", "str", .string("")),
        ("ASCII string", "str", .string("hello, world")),
        ("string with NUL", "str", .string("a\u{0}b\u{0}")),
        ("emoji ZWJ sequence", "str", .string("👩‍👩‍👧‍👦 and 🇫🇷")),
        ("NFC string", "str", .string("caf\u{E9}")),
        ("NFD string keeps its scalars", "str", .string("cafe\u{301}")),
        ("string with quotes and percent", "str", .string("'\"%_*?\\")),
        ("1 MiB string", "str", .string(String(repeating: "xyzé", count: 1 << 18))),
        ("empty bytes", "data", .bytes(Data())),
        ("bytes with zeros", "data", .bytes(Data([0, 255, 0, 1]))),
        ("16 MiB bytes", "data", .bytes(Data((0..<(16 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }))),
        ("date 1970", "date", .date(Date(timeIntervalSince1970: 0))),
        ("date 1900", "date", .date(date(1900))),
        ("date 3000", "date", .date(date(3000, 12, 31))),
        ("date with fraction", "date", .date(Date(timeIntervalSinceReferenceDate: 123_456.789_012))),
        ("date before 1970 with fraction", "date", .date(Date(timeIntervalSince1970: -1_234_567.25))),
        ("UUID", "uuid", .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID())),
        ("UUID all zeros", "uuid", .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))),
        ("UUID all ones", "uuid", .uuid(UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)))),
        ("URL", "url", .string("https://example.com/a%20b?q=1#frag")),
    ]

    static let all: [ConformanceCase] =
        roundTrips.map { name, key, value in
            ConformanceCase(name + " round-trips", group: "values") { ctx in try roundTrip(ctx, [key: value]) }
        }
        + Fixtures.sampleKeys.map { key in
            ConformanceCase("nil \(key) stays nil", group: "values") { ctx in try roundTrip(ctx, [key: .null]) }
        }
        + [
            ConformanceCase("empty string and nil stay distinct", group: "values") { ctx in
                let (store, world) = try ctx.seeded([Fixtures.sample(-1, ["str": .string("")]), Fixtures.sample(-2, [:])])
                try ctx.expectSameFetch(store, world, FetchRequest(entity: "Sample", predicate: .comparison(Comparison("str", .equal, .null))))
                try ctx.expectSameFetch(store, world, FetchRequest(entity: "Sample", predicate: .comparison(Comparison("str", .equal, .string("")))))
            },
            ConformanceCase("empty bytes and nil stay distinct", group: "values") { ctx in
                let (store, world) = try ctx.seeded([Fixtures.sample(-1, ["data": .bytes(Data())]), Fixtures.sample(-2, [:])])
                try ctx.expectSameFetch(store, world, FetchRequest(entity: "Sample", predicate: .comparison(Comparison("data", .equal, .null))))
                try ctx.expectSameFetch(store, world, FetchRequest(entity: "Sample", predicate: .comparison(Comparison("data", .equal, .bytes(Data())))))
            },
            ConformanceCase("NFC and NFD strings are different values", group: "values") { ctx in
                let (store, world) = try ctx.seeded([Fixtures.sample(-1, ["str": .string("\u{E9}")]), Fixtures.sample(-2, ["str": .string("e\u{301}")])])
                try ctx.expectSameFetch(store, world, FetchRequest(entity: "Sample", predicate: .comparison(Comparison("str", .equal, .string("\u{E9}")))))
                try ctx.expectSameFetch(store, world, FetchRequest(entity: "Sample", predicate: .comparison(Comparison("str", .equal, .string("e\u{301}")))))
            },
            ConformanceCase("every kind in one record round-trips", group: "values") { ctx in
                try roundTrip(ctx, Dictionary(uniqueKeysWithValues: Fixtures.sampleKeys.map { key in
                    (key, roundTrips.first { $0.1 == key && $0.0 != "16 MiB bytes" }?.2 ?? .null)
                }))
            },
            ConformanceCase("values survive an update", group: "values") { ctx in
                var world = World()
                let store = try ctx.openStore()
                let info = try ctx.commit(store, ChangeSet(inserts: [Fixtures.sample(-1, ["dbl": .double(1)])]), into: &world)
                let id = info.permanentIDs[Fixtures.id("Sample", -1)] ?? Fixtures.id("Sample", -1)
                var record = Fixtures.sample(id.key, ["dbl": .double(-0.0), "int": .int(Int64.min), "str": .string("e\u{301}")])
                record.id = id
                try ctx.commit(store, ChangeSet(updates: [RecordUpdate(record: record, changedKeys: ["dbl", "int", "str"])]), into: &world)
                try ctx.expectSameRecord(try ctx.records(store, [id]).first ?? nil, record)
            },
        ]

    /// Writes one Sample with `values` and checks both `records(_:)` and `fetch(_:)` return it exactly.
    static func roundTrip(_ ctx: ConformanceContext, _ values: [String: Value]) throws {
        let (store, world) = try ctx.seeded([Fixtures.sample(-1, values)])
        guard let expected = world.all.first else { try ctx.fail("the written record is missing from the world") }
        try ctx.expectSameRecord(try ctx.records(store, [expected.id]).first ?? nil, expected)
        let fetched = try ctx.fetch(store, FetchRequest(entity: "Sample"))
        try ctx.expectEqual(fetched.count, 1, "number of fetched samples")
        try ctx.expectSameRecord(fetched.first, expected)
    }
}
