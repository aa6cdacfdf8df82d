import Foundation
import CoreStore
import CoreStoreStorage

/// A `String`-backed enum field of the API-level cases.
enum ConformanceMood: String, FieldStorableType {
    case happy, grumpy, empty = ""
}

/// An `Int`-backed enum field of the API-level cases.
enum ConformancePriority: Int, FieldStorableType {
    case lowest = -1, highest = 9_000
}

/// A `Codable` value stored by `Field.Coded`.
struct ConformancePoint: Codable, Equatable {
    var x: Double
    var y: Double
}

/// One object with a field of every storable type, for the value cases of the `api` group.
final class ConformanceValues: CoreStoreObject {
    @Field.Stored("label") var label: Int = 0
    @Field.Stored("bool") var bool: Bool = false
    @Field.Stored("int") var int: Int = 0
    @Field.Stored("int8") var int8: Int8 = 0
    @Field.Stored("int16") var int16: Int16 = 0
    @Field.Stored("int32") var int32: Int32 = 0
    @Field.Stored("int64") var int64: Int64 = 0
    @Field.Stored("uint") var uint: UInt = 0
    @Field.Stored("uint8") var uint8: UInt8 = 0
    @Field.Stored("uint16") var uint16: UInt16 = 0
    @Field.Stored("uint32") var uint32: UInt32 = 0
    @Field.Stored("uint64") var uint64: UInt64 = 0
    @Field.Stored("double") var double: Double = 0
    @Field.Stored("float") var float: Float = 0
    @Field.Stored("decimal") var decimal: Decimal = 0
    @Field.Stored("string") var string: String = ""
    @Field.Stored("data") var data: Data = Data()
    @Field.Stored("date") var date: Date = Date(timeIntervalSince1970: 0)
    @Field.Stored("uuid") var uuid: UUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    @Field.Stored("url") var url: URL = URL(fileURLWithPath: "/")
    @Field.Stored("mood") var mood: ConformanceMood = .happy
    @Field.Stored("optBool") var optBool: Bool?
    @Field.Stored("optInt") var optInt: Int?
    @Field.Stored("optDouble") var optDouble: Double?
    @Field.Stored("optDecimal") var optDecimal: Decimal?
    @Field.Stored("optString") var optString: String?
    @Field.Stored("optData") var optData: Data?
    @Field.Stored("optDate") var optDate: Date?
    @Field.Stored("optUUID") var optUUID: UUID?
    @Field.Stored("optURL") var optURL: URL?
    @Field.Stored("priority") var priority: ConformancePriority?
    @Field.Coded("point", coder: FieldCoders.Json.self) var point: ConformancePoint = ConformancePoint(x: 0, y: 0)
    @Field.Coded("reversed", coder: (encode: ConformanceValues.encodeReversed, decode: ConformanceValues.decodeReversed)) var reversed: String = ""

    static func encodeReversed(_ value: String) -> Data? { Data(String(value.reversed()).utf8) }
    static func decodeReversed(_ data: Data?) -> String { data.map { String(String(decoding: $0, as: UTF8.self).reversed()) } ?? "" }
}

/// One family of values: how to set object `i` of `count`, and what to expect when reading it.
struct ValueFamily: Sendable {
    let name: String
    let count: Int
    let set: @Sendable (Int, ConformanceValues) -> Void
    let check: @Sendable (ConformanceContext, Int, ConformanceValues) throws -> Void
}

extension APICases {
    static func valuesSchema() -> CoreStoreSchema {
        CoreStoreSchema(modelVersion: "V1", entities: [Entity<ConformanceValues>("Values")])
    }

    static func date(sinceEpoch seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }

    /// Fails unless two doubles are the same value bit for bit (any NaN matches any NaN).
    static func expectSameDouble(_ ctx: ConformanceContext, _ actual: Double?, _ expected: Double?, _ what: String) throws {
        switch (actual, expected) {
        case (nil, nil): return
        case (let a?, let e?) where a.isNaN && e.isNaN: return
        case (let a?, let e?) where a.bitPattern == e.bitPattern: return
        default: try ctx.fail("\(what): got \(String(describing: actual)), expected \(String(describing: expected))")
        }
    }

    static let doubles: [Double] = [-0.0, 0.0, .infinity, -.infinity, .nan, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.1, -1e-300]
    static let floats: [Float] = [-0.0, .infinity, -.infinity, .nan, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.1, 1.5]
    static let decimals = ["0", "-0.000000000000000000001", "123.456", "12345678901234567890123456789012345678", "-18446744073709551615"]
    static let strings = ["", "caf\u{E9}", "cafe\u{301}", "a\u{0}b\u{0}", "👩‍👩‍👧‍👦 and 🇫🇷", "'\"%_*?\\", String(repeating: "xyzé", count: 5_000)]
    static let datas = [Data(), Data((0...255).map { UInt8($0) }), Data(repeating: 0, count: 1_000)]
    static let dates = [date(sinceEpoch: -2_208_988_800), date(sinceEpoch: -0.5), date(sinceEpoch: 0), date(sinceEpoch: 32_535_129_600), Date(timeIntervalSinceReferenceDate: 123_456.789_012)]
    static let uuids = [
        UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
        UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)),
        UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID(),
    ]
    static let urls = ["https://example.com/a%20b?q=1&r=%C3%A9#frag", "file:///tmp/a%20b/c.txt", "mailto:someone@example.com"]

    /// The families; each becomes a case, and again a case after reopen on persistent stores.
    static let valueFamilies: [ValueFamily] = [
        ValueFamily(name: "Bool and Bool?", count: 3, set: { i, o in
            o.bool = i == 1
            o.optBool = [nil, true, false][i]
        }, check: { ctx, i, o in
            try ctx.expectEqual(o.bool, i == 1, "bool of object \(i)")
            try ctx.expectEqual(o.optBool, [nil, true, false][i], "optBool of object \(i)")
        }),
        ValueFamily(name: "every integer width at its edges", count: 3, set: { i, o in
            switch i {
            case 0: (o.int, o.int8, o.int16, o.int32, o.int64) = (.min, .min, .min, .min, .min); (o.uint, o.uint8, o.uint16, o.uint32, o.uint64) = (0, 0, 0, 0, 0)
            case 1: (o.int, o.int8, o.int16, o.int32, o.int64) = (-1, -1, -1, -1, -1); (o.uint, o.uint8, o.uint16, o.uint32, o.uint64) = (1, 1, 1, 1, 1)
            default: (o.int, o.int8, o.int16, o.int32, o.int64) = (.max, .max, .max, .max, .max); (o.uint, o.uint8, o.uint16, o.uint32, o.uint64) = (.max, .max, .max, .max, .max)
            }
            o.optInt = [Int.min, nil, Int.max][i]
        }, check: { ctx, i, o in
            let signed: [Int64] = [Int64(o.int), Int64(o.int8), Int64(o.int16), Int64(o.int32), o.int64]
            let expectedSigned: [[Int64]] = [[.min, Int64(Int8.min), Int64(Int16.min), Int64(Int32.min), .min], [-1, -1, -1, -1, -1],
                                             [.max, Int64(Int8.max), Int64(Int16.max), Int64(Int32.max), .max]]
            try ctx.expectEqual(signed, expectedSigned[i], "Int, Int8, Int16, Int32, Int64 of object \(i)")
            let unsigned: [UInt64] = [UInt64(o.uint), UInt64(o.uint8), UInt64(o.uint16), UInt64(o.uint32), o.uint64]
            let expectedUnsigned: [[UInt64]] = [[0, 0, 0, 0, 0], [1, 1, 1, 1, 1], [UInt64(UInt.max), UInt64(UInt8.max), UInt64(UInt16.max), UInt64(UInt32.max), .max]]
            try ctx.expectEqual(unsigned, expectedUnsigned[i], "UInt, UInt8, UInt16, UInt32, UInt64 of object \(i)")
            try ctx.expectEqual(o.optInt, [Int.min, nil, Int.max][i], "optInt of object \(i)")
        }),
        ValueFamily(name: "Double -0.0, infinities, NaN, subnormals", count: doubles.count, set: { i, o in
            o.double = doubles[i]
            o.optDouble = i == 0 ? nil : doubles[i]
        }, check: { ctx, i, o in
            try expectSameDouble(ctx, o.double, doubles[i], "double of object \(i)")
            try expectSameDouble(ctx, o.optDouble, i == 0 ? nil : doubles[i], "optDouble of object \(i)")
        }),
        ValueFamily(name: "Float edges", count: floats.count, set: { i, o in o.float = floats[i] }, check: { ctx, i, o in
            try ctx.expect(o.float.bitPattern == floats[i].bitPattern || (o.float.isNaN && floats[i].isNaN), "float of object \(i): got \(o.float), expected \(floats[i])")
        }),
        ValueFamily(name: "Decimal edges", count: decimals.count, set: { i, o in
            o.decimal = Decimal(string: decimals[i]) ?? 0
            o.optDecimal = i == 0 ? nil : Decimal(string: decimals[i])
        }, check: { ctx, i, o in
            try ctx.expectEqual(o.decimal, Decimal(string: decimals[i]) ?? 0, "decimal of object \(i)")
            try ctx.expectEqual(o.optDecimal, i == 0 ? nil : Decimal(string: decimals[i]), "optDecimal of object \(i)")
        }),
        ValueFamily(name: "String empty and nil, NFC and NFD, NUL, emoji", count: strings.count, set: { i, o in
            o.string = strings[i]
            o.optString = i == 0 ? nil : (i == 1 ? "" : strings[i])
        }, check: { ctx, i, o in
            try ctx.expectEqual(Array(o.string.unicodeScalars), Array(strings[i].unicodeScalars), "unicode scalars of string of object \(i)")
            let expected: String? = i == 0 ? nil : (i == 1 ? "" : strings[i])
            try ctx.expectEqual(o.optString.map { Array($0.unicodeScalars) }, expected.map { Array($0.unicodeScalars) }, "unicode scalars of optString of object \(i)")
        }),
        ValueFamily(name: "Data empty and nil, every byte", count: datas.count, set: { i, o in
            o.data = datas[i]
            o.optData = [nil, Data(), Data([0])][i]
        }, check: { ctx, i, o in
            try ctx.expectEqual(o.data, datas[i], "data of object \(i)")
            try ctx.expectEqual(o.optData, [nil, Data(), Data([0])][i], "optData of object \(i)")
        }),
        ValueFamily(name: "Date before 1970 and far in the future", count: dates.count, set: { i, o in
            o.date = dates[i]
            o.optDate = i == 0 ? nil : dates[i]
        }, check: { ctx, i, o in
            try ctx.expectEqual(o.date, dates[i], "date of object \(i)")
            try ctx.expectEqual(o.optDate, i == 0 ? nil : dates[i], "optDate of object \(i)")
        }),
        ValueFamily(name: "UUID and URL", count: 3, set: { i, o in
            o.uuid = uuids[i]
            o.optUUID = i == 0 ? nil : uuids[i]
            o.url = URL(string: urls[i]) ?? URL(fileURLWithPath: "/")
            o.optURL = i == 1 ? nil : URL(string: urls[i])
        }, check: { ctx, i, o in
            try ctx.expectEqual(o.uuid, uuids[i], "uuid of object \(i)")
            try ctx.expectEqual(o.optUUID, i == 0 ? nil : uuids[i], "optUUID of object \(i)")
            try ctx.expectEqual(o.url.absoluteString, urls[i], "url of object \(i)")
            try ctx.expectEqual(o.optURL?.absoluteString, i == 1 ? nil : urls[i], "optURL of object \(i)")
        }),
        ValueFamily(name: "RawRepresentable enums", count: 3, set: { i, o in
            o.mood = [.happy, .grumpy, .empty][i]
            o.priority = [nil, .lowest, .highest][i]
        }, check: { ctx, i, o in
            try ctx.expectEqual(o.mood.rawValue, ["happy", "grumpy", ""][i], "mood of object \(i)")
            try ctx.expectEqual(o.priority, [nil, .lowest, .highest][i], "priority of object \(i)")
        }),
        ValueFamily(name: "Field.Coded with JSON and with closures", count: 2, set: { i, o in
            o.point = i == 0 ? ConformancePoint(x: 0, y: 0) : ConformancePoint(x: -1.5, y: 1e300)
            o.reversed = i == 0 ? "" : "abc é"
        }, check: { ctx, i, o in
            try ctx.expectEqual(o.point, i == 0 ? ConformancePoint(x: 0, y: 0) : ConformancePoint(x: -1.5, y: 1e300), "point of object \(i)")
            try ctx.expectEqual(o.reversed, i == 0 ? "" : "abc é", "reversed of object \(i)")
        }),
    ]

    /// Saves `family`'s objects in one transaction and checks them as fetched from the stack;
    /// with `reopen`, from a new stack over a new instance of the store.
    static func roundTrip(_ ctx: ConformanceContext, _ family: ValueFamily, reopen: Bool) throws {
        func populate(_ stack: DataStack) throws {
            try stack.perform(synchronous: { t in
                for i in 0..<family.count {
                    let o = t.create(Into<ConformanceValues>())
                    o.label = i
                    family.set(i, o)
                }
            })
        }
        let stack: DataStack
        if reopen {
            stack = try reopenedStack(ctx, try populatedStore(ctx, valuesSchema(), populate), valuesSchema())
        } else {
            stack = try makeStack(ctx, valuesSchema()).0
            try populate(stack)
        }
        let objects = try stack.fetchAll(From<ConformanceValues>().orderBy(.ascending(\.$label)))
        try ctx.expectEqual(objects.map(\.label), Array(0..<family.count), "labels of the saved objects")
        for (i, o) in objects.enumerated() { try family.check(ctx, i, o) }
    }

    static let valueCases: [ConformanceCase] =
        valueFamilies.map { family in c("\(family.name) round-trip through a DataStack") { ctx in try roundTrip(ctx, family, reopen: false) } }
        + valueFamilies.map { family in c("\(family.name) survive reopening the store", requires: .persistent) { ctx in try roundTrip(ctx, family, reopen: true) } }
        + [
            c("NFC and NFD strings are different values in predicates") { ctx in
                let (stack, _) = try makeStack(ctx, valuesSchema())
                try stack.perform(synchronous: { t in
                    for (i, s) in ["caf\u{E9}", "cafe\u{301}", "CAF\u{C9}"].enumerated() {
                        let o = t.create(Into<ConformanceValues>())
                        o.label = i
                        o.string = s
                    }
                })
                let labels = { (w: Where<ConformanceValues>) in try stack.fetchAll(From<ConformanceValues>().where(w).orderBy(.ascending(\.$label))).map(\.label) }
                try ctx.expectEqual(try labels(\.$string == "caf\u{E9}"), [0], "objects equal to the NFC string")
                try ctx.expectEqual(try labels(\.$string == "cafe\u{301}"), [1], "objects equal to the NFD string")
                try ctx.expectEqual(try labels(Where<ConformanceValues>("string ==[d] %@", "cafe")), [0, 1], "objects equal to 'cafe' ignoring diacritics")
                try ctx.expectEqual(try labels(Where<ConformanceValues>("string ==[cd] %@", "cafe")), [0, 1, 2], "objects equal to 'cafe' ignoring case and diacritics")
            },
            c("optional fields go from nil to a value and back to nil") { ctx in
                let (stack, _) = try makeStack(ctx, valuesSchema())
                try stack.perform(synchronous: { t in _ = t.create(Into<ConformanceValues>()) })
                try stack.perform(synchronous: { t in
                    for o in try t.fetchAll(From<ConformanceValues>()) {
                        (o.optInt, o.optString, o.optData, o.optDate, o.optDouble) = (0, "", Data(), dates[0], -0.0)
                    }
                })
                try ctx.expectEqual(try stack.fetchCount(From<ConformanceValues>().where(\.$optString == "")), 1, "objects whose optString is empty")
                try stack.perform(synchronous: { t in
                    for o in try t.fetchAll(From<ConformanceValues>()) { (o.optInt, o.optString, o.optData, o.optDate, o.optDouble) = (nil, nil, nil, nil, nil) }
                })
                let o = try stack.fetchOne(From<ConformanceValues>())
                try ctx.expect(o?.optInt == nil && o?.optString == nil && o?.optData == nil && o?.optDate == nil && o?.optDouble == nil,
                               "optional fields after setting them back to nil: \(String(describing: o?.optInt)), \(String(describing: o?.optString)), \(String(describing: o?.optData)), \(String(describing: o?.optDate)), \(String(describing: o?.optDouble))")
                try ctx.expectEqual(try stack.fetchCount(From<ConformanceValues>().where(\.$optString == nil)), 1, "objects whose optString is nil")
            },
            c("typed predicates find integer edges exactly") { ctx in
                let (stack, _) = try makeStack(ctx, valuesSchema())
                try stack.perform(synchronous: { t in
                    for i in 0..<3 {
                        let o = t.create(Into<ConformanceValues>())
                        o.label = i
                        valueFamilies[1].set(i, o)
                    }
                })
                let count = { (w: Where<ConformanceValues>) in try stack.fetchCount(From<ConformanceValues>().where(w)) }
                try ctx.expectEqual(try count(\.$int64 == .min), 1, "objects with int64 == Int64.min")
                try ctx.expectEqual(try count(\.$uint64 == .max), 1, "objects with uint64 == UInt64.max")
                try ctx.expectEqual(try count(\.$uint64 > UInt64(Int64.max)), 1, "objects with uint64 > Int64.max")
                try ctx.expectEqual(try count(\.$int8 < 0), 2, "objects with a negative int8")
                try ctx.expectEqual(try count(\.$uint32 >= 1), 2, "objects with uint32 >= 1")
            },
        ]
}
