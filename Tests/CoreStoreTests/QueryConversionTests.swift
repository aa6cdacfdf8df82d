import Foundation
import Testing
@testable import CoreStore

@Suite("Query result conversions")
struct QueryConversionTests {
    /// The two samples of `Samples.makeStack(_:)`, on a store of the given kind.
    struct Fixture {
        let stack: DataStack

        init(_ kind: StoreKind) throws {
            stack = try Samples.makeStack(kind)
        }

        /// The value of `term` on sample "s1", read as `T`.
        func value<T: QueryableAttributeType>(_ term: SelectTerm<Sample>, as type: T.Type, label: String = "s1") throws(CoreStoreError) -> T? {
            try stack.queryValue(From<Sample>(), Select<Sample, T>(term), \Sample.$label == label)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func everyTargetTypeReadsItsOwnKind(_ kind: StoreKind) throws {
        let fixture = try Fixture(kind)
        let stack = fixture.stack
        #expect(try fixture.value("flag", as: Bool.self) == true)
        #expect(try fixture.value("count", as: Int.self) == 42)
        #expect(try fixture.value("count", as: Int8.self) == 42)
        #expect(try fixture.value("count", as: Int16.self) == 42)
        #expect(try fixture.value("count", as: Int32.self) == 42)
        #expect(try fixture.value("count", as: Int64.self) == 42)
        #expect(try fixture.value("count", as: UInt.self) == 42)
        #expect(try fixture.value("count", as: UInt8.self) == 42)
        #expect(try fixture.value("count", as: UInt16.self) == 42)
        #expect(try fixture.value("count", as: UInt32.self) == 42)
        #expect(try fixture.value("count", as: UInt64.self) == 42)
        #expect(try fixture.value("huge", as: UInt64.self) == .max)
        #expect(try fixture.value("ratio", as: Double.self) == 2.5)
        #expect(try fixture.value("weight", as: Float.self) == 1.5)
        #expect(try fixture.value("price", as: Decimal.self) == Decimal(string: "12.75"))
        #expect(try fixture.value("label", as: String.self) == "s1")
        #expect(try fixture.value("taken", as: Date.self) == Samples.taken)
        #expect(try fixture.value("blob", as: Data.self) == Data([1, 2, 3]))
        #expect(try fixture.value("code", as: UUID.self) == Samples.code)
        #expect(try fixture.value("link", as: URL.self) == URL(string: "https://example.com/a"))
        let id = try stack.fetchObjectID(From<Sample>().where(\.$label == "s1"))
        #expect(try fixture.value(.objectID(), as: ObjectID.self) == id)
    }

    @Test(arguments: StoreKind.allCases)
    func numbersConvertAcrossKinds(_ kind: StoreKind) throws {
        let fixture = try Fixture(kind)
        let stack = fixture.stack
        #expect(try fixture.value("count", as: Double.self) == 42.0)
        #expect(try fixture.value("count", as: Float.self) == 42.0)
        #expect(try fixture.value("count", as: Decimal.self) == 42)
        #expect(try fixture.value("ratio", as: Decimal.self) == Decimal(string: "2.5"))
        #expect(try fixture.value("price", as: Double.self) == 12.75)
        #expect(try fixture.value("ratio", as: Int.self) == 2, "fractions round toward zero")
        #expect(try fixture.value("price", as: Int.self) == 12)
        #expect(try fixture.value("flag", as: Int.self) == 1)
        #expect(try fixture.value("huge", as: Decimal.self) == Decimal(string: "18446744073709551615"))
        #expect(try fixture.value(.count("label"), as: Bool.self) == true, "1 reads as true")
        #expect(try fixture.value(.average("count"), as: Int.self, label: "s2") == -3)
        #expect(try stack.queryValue(From<Sample>(), Select<Sample, Double>(.average(\.$count))) == 19.5)
        #expect(try stack.queryValue(From<Sample>(), Select<Sample, Int>(.average(\.$count))) == 19)
        #expect(try stack.queryValue(From<Sample>(), Select<Sample, Decimal>(.sum(\.$price))) == Decimal(string: "12.75"))
        #expect(try stack.queryValue(From<Sample>(), Select<Sample, Double>(.sum(\.$ratio))) == 2.5)
    }

    @Test(arguments: StoreKind.allCases)
    func valuesATypeCannotHoldThrow(_ kind: StoreKind) throws {
        let fixture = try Fixture(kind)
        expectInvalidQuery("cannot be read as Int") { _ = try fixture.value("label", as: Int.self) }
        expectInvalidQuery("cannot be read as String") { _ = try fixture.value("count", as: String.self) }
        expectInvalidQuery("cannot be read as Date") { _ = try fixture.value("label", as: Date.self) }
        expectInvalidQuery("cannot be read as Data") { _ = try fixture.value("code", as: Data.self) }
        expectInvalidQuery("cannot be read as ObjectID") { _ = try fixture.value("count", as: ObjectID.self) }
        expectInvalidQuery("cannot be read as Int") { _ = try fixture.value(.objectID(), as: Int.self) }
        expectInvalidQuery("does not fit in Int8") { _ = try fixture.value("huge", as: Int8.self) }
        expectInvalidQuery("does not fit in Int") { _ = try fixture.value("huge", as: Int.self) }
        expectInvalidQuery("does not fit in UInt") { _ = try fixture.value("count", as: UInt.self, label: "s2") }
        expectInvalidQuery("does not fit in Bool") { _ = try fixture.value("count", as: Bool.self) }
        expectInvalidQuery("does not fit in UUID") { _ = try fixture.value("label", as: UUID.self) }
    }

    @Test(arguments: StoreKind.allCases)
    func queryAttributesUsesNaturalSwiftTypes(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        let rows = try stack.queryAttributes(
            From<Sample>(),
            Select("label", "count", "ratio", "price", "flag", "taken", "blob", "code", "link", "weight", "huge", .objectID()),
            OrderBy<Sample>(.ascending(\.$label))
        )
        #expect(rows.count == 2)
        let full = try #require(rows.first)
        #expect(full["label"] as? String == "s1")
        #expect(full["count"] as? Int == 42)
        #expect(full["ratio"] as? Double == 2.5)
        #expect(full["price"] as? Decimal == Decimal(string: "12.75"))
        #expect(full["flag"] as? Bool == true)
        #expect(full["taken"] as? Date == Samples.taken)
        #expect(full["blob"] as? Data == Data([1, 2, 3]))
        #expect(full["code"] as? UUID == Samples.code)
        #expect(full["link"] as? String == "https://example.com/a")
        #expect(full["weight"] as? Double == 1.5)
        #expect(full["huge"] as? Decimal == Decimal(string: "18446744073709551615"))
        #expect(full["objectID"] is ObjectID)
        #expect(Set(rows[1].keys) == ["label", "count", "flag", "objectID"], "nil values are left out")
    }

    @Test(arguments: StoreKind.allCases)
    func integerSumOverflowIsAnError(_ kind: StoreKind) throws {
        let stack = try Fixture(kind).stack
        try stack.perform(synchronous: { transaction in
            transaction.create(Into<Sample>()).count = .max
        })
        expectInvalidQuery("sum overflows") { _ = try stack.queryValue(From<Sample>(), Select<Sample, Int>(.sum(\.$count))) }
        #expect(try stack.queryValue(From<Sample>(), Select<Sample, Int>(.maximum(\.$count))) == .max)
    }
}
