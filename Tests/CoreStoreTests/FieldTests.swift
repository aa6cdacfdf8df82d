import Foundation
import Testing
@testable import CoreStore

enum Priority: Int, FieldStorableType {
    case low = 1, high = 2
}

final class AllTypes: CoreStoreObject {
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
    @Field.Stored("string") var string: String = ""
    @Field.Stored("data") var data: Data = Data()
    @Field.Stored("date") var date: Date = Date(timeIntervalSince1970: 0)
    @Field.Stored("url") var url: URL = URL(fileURLWithPath: "/")
    @Field.Stored("uuid") var uuid: UUID = UUID()
    @Field.Stored("decimal") var decimal: Decimal = 0
    @Field.Stored("priority") var priority: Priority = .low
    @Field.Stored("optionalInt") var optionalInt: Int?
    @Field.Stored("optionalString") var optionalString: String?
    @Field.Stored("optionalDate") var optionalDate: Date?
    @Field.Stored("optionalPriority") var optionalPriority: Priority?
    @Field.Stored("created", dynamicInitialValue: { UUID() }) var created: UUID
    @Field.Coded("point", coder: FieldCoders.Json.self) var point: [Double] = [0, 0]
    @Field.Coded("reversed", coder: (encode: AllTypes.encodeReversed, decode: AllTypes.decodeReversed))
    var reversed: String = ""
    @Field.Virtual("summary", customGetter: AllTypes.summary(of:), customSetter: AllTypes.setSummary)
    var summary: String

    static func encodeReversed(_ value: String) -> Data? { Data(String(value.reversed()).utf8) }
    static func decodeReversed(_ data: Data?) -> String { data.map { String(String(decoding: $0, as: UTF8.self).reversed()) } ?? "" }

    static func summary(of object: AllTypes) -> String { "\(object.string)#\(object.int)" }
    static func setSummary(_ object: AllTypes, _ value: String) {
        let parts = value.split(separator: "#")
        object.string = String(parts.first ?? "")
        object.int = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
    }
}

@Suite("Storable field types")
struct FieldTests {
    /// A stack holding only `AllTypes`, on a new store of the given kind.
    static func makeAllTypesStack(_ kind: StoreKind) throws -> DataStack {
        let stack = DataStack(CoreStoreSchema(modelVersion: "V1", entities: [Entity<AllTypes>("AllTypes")], versionLock: nil))
        try stack.addStorageAndWait(kind.makeStore())
        return stack
    }

    @Test(arguments: StoreKind.allCases)
    func everyStorableTypeRoundTripsAtItsEdges(_ kind: StoreKind) throws {
        let stack = try Self.makeAllTypesStack(kind)
        let date = Date(timeIntervalSince1970: -1_234_567_890.5)
        let uuid = UUID()
        try stack.perform(synchronous: { transaction in
            let o = transaction.create(Into<AllTypes>())
            o.bool = true
            o.int = .min
            o.int8 = .min
            o.int16 = .max
            o.int32 = .min
            o.int64 = .max
            o.uint = .max
            o.uint8 = .max
            o.uint16 = .max
            o.uint32 = .max
            o.uint64 = .max
            o.double = -.infinity
            o.float = 1.5
            o.string = "héllo 🌍 \u{0}"
            o.data = Data([0, 1, 2, 255])
            o.date = date
            o.url = URL(string: "https://example.com/a?b=c")!
            o.uuid = uuid
            o.decimal = Decimal(string: "12345678901234567890.123")!
            o.priority = .high
            o.optionalInt = 42
            o.optionalString = nil
            o.optionalDate = date
            o.optionalPriority = .high
            o.point = [1.5, -2]
            o.reversed = "abc"
        })
        let o = try #require(try stack.fetchOne(From<AllTypes>()))
        #expect(o.bool == true)
        #expect(o.int == .min)
        #expect(o.int8 == .min)
        #expect(o.int16 == .max)
        #expect(o.int32 == .min)
        #expect(o.int64 == .max)
        #expect(o.uint == .max)
        #expect(o.uint8 == .max)
        #expect(o.uint16 == .max)
        #expect(o.uint32 == .max)
        #expect(o.uint64 == .max)
        #expect(o.double == -.infinity)
        #expect(o.float == 1.5)
        #expect(o.string == "héllo 🌍 \u{0}")
        #expect(o.data == Data([0, 1, 2, 255]))
        #expect(o.date == date)
        #expect(o.url.absoluteString == "https://example.com/a?b=c")
        #expect(o.uuid == uuid)
        #expect(o.decimal == Decimal(string: "12345678901234567890.123")!)
        #expect(o.priority == .high)
        #expect(o.optionalInt == 42)
        #expect(o.optionalString == nil)
        #expect(o.optionalDate == date)
        #expect(o.optionalPriority == .high)
        #expect(o.point == [1.5, -2])
        #expect(o.reversed == "abc")
    }

    @Test(arguments: StoreKind.allCases)
    func newObjectsStartAtTheirInitialValues(_ kind: StoreKind) throws {
        let stack = try Self.makeAllTypesStack(kind)
        try stack.perform(synchronous: { transaction in
            let o = transaction.create(Into<AllTypes>())
            #expect(o.int == 0)
            #expect(o.string == "")
            #expect(o.optionalInt == nil)
            #expect(o.priority == .low)
            #expect(o.point == [0, 0])
            // Each new object's values are its own: changing one leaves the next at the
            // initial values.
            o.int = 42
            o.string = "changed"
            let next = transaction.create(Into<AllTypes>())
            #expect(next.int == 0)
            #expect(next.string == "")
            #expect(o.int == 42)
            #expect(o.string == "changed")
        })
    }

    @Test
    func metaInstancesReadTheirInitialValues() {
        // A meta instance has no entity: the getters' fast path finds no attribute and the
        // declared initial value is read instead.
        let meta = AllTypes(asMeta: ())
        #expect(meta.int == 0)
        #expect(meta.string == "")
        #expect(meta.optionalInt == nil)
        #expect(meta.priority == .low)
        #expect(meta.date == Date(timeIntervalSince1970: 0))
    }

    @Test(arguments: StoreKind.allCases)
    func dynamicInitialValueIsEvaluatedForEachInsert(_ kind: StoreKind) throws {
        let stack = try Self.makeAllTypesStack(kind)
        try stack.perform(synchronous: { transaction in
            _ = transaction.create(Into<AllTypes>())
            _ = transaction.create(Into<AllTypes>())
        })
        let values = try stack.fetchAll(From<AllTypes>()).map(\.created)
        #expect(values.count == 2)
        #expect(Set(values).count == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func virtualFieldUsesItsGetterAndSetter(_ kind: StoreKind) throws {
        let stack = try Self.makeAllTypesStack(kind)
        try stack.perform(synchronous: { transaction in
            let o = transaction.create(Into<AllTypes>())
            o.summary = "abc#7"
            #expect(o.string == "abc")
            #expect(o.int == 7)
        })
        let o = try #require(try stack.fetchOne(From<AllTypes>()))
        #expect(o.summary == "abc#7")
    }

    @Test(arguments: StoreKind.allCases)
    func settingAFieldOnAStackObjectIsRejectedAndIgnored(_ kind: StoreKind) throws {
        let stack = try Self.makeAllTypesStack(kind)
        try stack.perform(synchronous: { $0.create(Into<AllTypes>()).int = 5 })
        let o = try #require(try stack.fetchOne(From<AllTypes>()))
        o.int = 99
        #expect(o.int == 5)
    }

    @Test(arguments: StoreKind.allCases)
    func optionalFieldCanBeSetBackToNil(_ kind: StoreKind) throws {
        let stack = try Self.makeAllTypesStack(kind)
        try stack.perform(synchronous: { $0.create(Into<AllTypes>()).optionalInt = 3 })
        try stack.perform(synchronous: { transaction in
            let o = try #require(try transaction.fetchOne(From<AllTypes>()))
            o.optionalInt = nil
        })
        #expect(try stack.fetchOne(From<AllTypes>())?.optionalInt == nil)
        #expect(try stack.fetchCount(From<AllTypes>().where(\.$optionalInt == nil)) == 1)
    }
}
