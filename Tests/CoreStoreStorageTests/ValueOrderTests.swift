import Foundation
import Testing
import CoreStoreStorage

@Suite("Value order")
struct ValueOrderTests {
    @Test(arguments: [
        (Value.null, Value.bool(false)),
        (.int(-1), .double(-0.5)),
        (.double(1.5), .int(2)),
        (.int(Int64.max - 1), .int(Int64.max)),
        (.double(.nan), .int(Int64.min)),
        (.int(Int64.max), .double(1e19)),
        (.decimal(Decimal(string: "1.1")!), .int(2)),
        (.string("Z"), .string("a")),
        (.string("e\u{301}"), .string("\u{e9}")),
        (.int(1_000_000), .string("")),
        (.string("zzz"), .bytes(Data())),
        (.bytes(Data([1])), .bytes(Data([1, 0]))),
        (.bytes(Data([255])), .date(Date(timeIntervalSince1970: 0))),
        (.date(Date(timeIntervalSince1970: -1)), .date(Date(timeIntervalSince1970: 0))),
    ])
    func orders(_ smaller: Value, _ larger: Value) {
        #expect(Value.storageOrder(smaller, larger) < 0)
        #expect(Value.storageOrder(larger, smaller) > 0)
        #expect(smaller < larger)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, 1e300, -1e300])
    func datesOutsideTheCalendarDescribeThemselvesWithoutCrashing(_ interval: Double) {
        let text = Value.date(Date(timeIntervalSinceReferenceDate: interval)).description
        #expect(text.hasPrefix("Date(timeIntervalSinceReferenceDate:"))
    }

    @Test func numbersCompareByValueAcrossStorage() {
        #expect(Value.storageOrder(.int(2), .double(2.0)) == 0)
        #expect(Value.storageOrder(.bool(true), .int(1)) == 0)
        #expect(Value.storageOrder(.decimal(5), .double(5)) == 0)
        #expect(Value.storageOrder(.int(Int64.max), .double(9.223372036854775807e18)) < 0, "no rounding of the integer")
    }

    @Test func precomposedAndDecomposedStringsDiffer() {
        #expect(Value.string("\u{e9}") != Value.string("e\u{301}"))
        #expect(Value.storageOrder(.string("\u{e9}"), .string("e\u{301}")) != 0)
    }
}

@Suite("Value identity")
struct ValueIdentityTests {
    @Test func identityIsExact() {
        #expect(Value.double(.nan) == Value.double(.nan))
        #expect(Value.double(-0.0) != Value.double(0.0))
        #expect(Value.int(1) != Value.double(1))
        #expect(Set([Value.string("\u{e9}"), .string("e\u{301}")]).count == 2)
    }

    @Test func stringsAreTheSameOnlyByteForByte() {
        let long = String(repeating: "é-ü ", count: 40)
        #expect(Value.string(long) == Value.string(String(long.unicodeScalars)))
        #expect(Value.string(long + "a") != Value.string(long + "b"))
        #expect(Value.string(long) != Value.string(long + "\0"))
        #expect(Value.string("") == Value.string(String()))
        #expect(Value.string("") != Value.string("\0"))
        #expect(Value.string("short") == Value.string("sh" + "ort"))
    }
}
