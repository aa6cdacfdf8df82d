import Foundation
import Testing
@testable import CoreStore

/// Names and values an attacker or an unlucky user could choose, on every store: strings with
/// quotes, NUL, SQL and format syntax, as attribute values, format arguments, unique keys and
/// sort keys; entity and attribute names that are SQL keywords or carry quotes; huge values.
/// Each round-trips exactly and never changes what a query means.
@Suite("Hostile names and values")
struct HostileDataTests {
    /// An entity and attributes whose names are SQL keywords and quoting characters.
    final class Select: CoreStoreObject {
        @Field.Stored("order") var order: String = ""
        @Field.Stored("from\"; DROP TABLE x; --") var from: String?
        @Field.Stored("group by") var groupBy: Int = 0
        @Field.Stored("blob") var blob: Data?
    }

    static let schema = CoreStoreSchema(
        modelVersion: "V1",
        entities: [Entity<Select>("Select\"; --", indexes: [[\Select.$groupBy]], uniqueConstraints: [[\Select.$order]])]
    )

    static let hostileStrings = [
        "'); DROP TABLE \"Select\"; --",
        "\" OR 1=1 --",
        "Robert'); DELETE FROM corestore_metadata; --",
        "NUL\u{0}in the middle",
        "\u{0}",
        "\u{0}\u{0}\u{1}",
        "ends with NUL\u{0}",
        "emoji 👩‍👩‍👧‍👦 family",
        "percent %@ %d %K %%",
        "?1 ?2 ? :name @p $x",
        "back\\slash \\' \\\"",
        "e\u{301}",
        "\u{E9}",
        "\u{FFFD} replacement",
        "",
        "%",
        "_",
        "*?[a-z]",
    ]

    static func makeStack(_ kind: StoreKind) throws -> DataStack {
        let stack = DataStack(schema)
        try stack.addStorageAndWait(kind.makeStore())
        return stack
    }

    @Test(arguments: StoreKind.allCases)
    func hostileStringsRoundTripAndMeanOnlyThemselves(kind: StoreKind) throws {
        let stack = try Self.makeStack(kind)
        try stack.perform(synchronous: { t in
            for (i, text) in Self.hostileStrings.enumerated() {
                let row = t.create(Into<Select>())
                row.order = text
                row.from = text
                row.groupBy = i
            }
        })
        #expect(try stack.fetchCount(From<Select>()) == Self.hostileStrings.count, "nothing was injected")
        for (i, text) in Self.hostileStrings.enumerated() {
            let found = try stack.fetchAll(From<Select>().where(\.$order == text))
            #expect(found.map(\.groupBy) == [i], "\(text.debugDescription)")
            #expect(found.first?.from.map { Array($0.utf8) } == Array(text.utf8), "\(text.debugDescription) byte for byte")
            #expect(try stack.fetchCount(From<Select>().where(Where<Select>("%K == %@", "order", text))) == 1, "\(text.debugDescription) as a format argument")
            #expect(try stack.fetchCount(From<Select>().where(\.$order ~= [text, "nothing"])) == 1, "\(text.debugDescription) in a list")
        }
        // Sorted by UTF-8 bytes, the order every store shares.
        let sorted = try stack.fetchAll(From<Select>().orderBy(.ascending(\.$order))).map(\.order)
        #expect(sorted == Self.hostileStrings.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        // A unique constraint tells NUL-suffixed and decomposed strings apart, and holds for equal ones.
        #expect(throws: CoreStoreError.self) {
            try stack.perform(synchronous: { t in t.create(Into<Select>()).order = "\u{0}" })
        }
        #expect(try stack.fetchCount(From<Select>()) == Self.hostileStrings.count)
    }

    @Test(arguments: StoreKind.allCases)
    func hugeValuesRoundTrip(kind: StoreKind) throws {
        let stack = try Self.makeStack(kind)
        let text = String(repeating: "é'\u{0}\"", count: 256 * 1024)
        let data = Data((0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try stack.perform(synchronous: { t in
            let row = t.create(Into<Select>())
            row.order = "huge"
            row.from = text
            row.blob = data
        })
        let row = try #require(try stack.fetchOne(From<Select>().where(\.$order == "huge")))
        #expect(row.from == text)
        #expect(row.blob == data)
        #expect(try stack.fetchCount(From<Select>().where(\.$from == text)) == 1)
    }
}
