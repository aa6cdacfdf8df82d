import Foundation
import Testing
@testable import CoreStore

/// A property getter finds its attribute by the bits of the key string its field holds; a key
/// that is a different string with the same text (built anew for every object) must still read
/// and write the right attribute.
@Suite("Field keys spelled by other strings")
struct FieldKeySpellingTests {
    /// Keys longer than a small string, built for every instance: each object's key is its own
    /// heap string, never the one the schema was read from.
    final class Gauge: CoreStoreObject {
        @Field.Stored(String(repeating: "r", count: 8) + "eadingInTenths") var reading: Int = 0
        @Field.Stored(String(repeating: "l", count: 1) + "abelOfTheGaugeOnTheWall") var label: String = "unnamed"
        @Field.Stored("short") var short: Double = 0
    }

    static func makeStack(_ kind: StoreKind) throws -> DataStack {
        let stack = DataStack(CoreStoreSchema(modelVersion: "K1", entities: [Entity<Gauge>("Gauge")]))
        try stack.addStorageAndWait(kind.makeStore())
        return stack
    }

    @Test func eachObjectHoldsItsOwnKeyString() {
        let first = Gauge(asMeta: ())
        let second = Gauge(asMeta: ())
        let a = first.$label.keyPath, b = second.$label.keyPath
        #expect(a == b)
        #expect(StringBits(a) != StringBits(b), "the keys are different strings, so the getter takes the spelled-as path")
    }

    @Test(arguments: StoreKind.allCases)
    func otherSpellingsReadAndWriteTheirAttribute(_ kind: StoreKind) throws {
        let stack = try Self.makeStack(kind)
        try stack.perform(synchronous: { t in
            let gauge = t.create(Into<Gauge>())
            #expect(gauge.label == "unnamed")
            gauge.reading = 215
            gauge.label = "boiler"
            gauge.short = 1.5
            #expect(gauge.reading == 215)
        })
        let gauge = try #require(try stack.fetchOne(From<Gauge>()))
        #expect(gauge.reading == 215)
        #expect(gauge.label == "boiler")
        #expect(gauge.short == 1.5)
        #expect(try stack.fetchCount(From<Gauge>().where(\.$reading == 215)) == 1)
        #expect(try stack.queryValue(From<Gauge>().select(String.self, .attribute(\.$label))) == "boiler")
    }
}
