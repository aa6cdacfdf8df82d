import Foundation
import Testing
import CoreStoreStorage

/// `RecordSorter.sortedPrefix(_:count:)` must give exactly the prefix of a full sort.
@Suite("Record sorter: sorted prefixes")
struct RecordSorterPrefixTests {
    /// 2,000 people in shuffled key order, with few distinct ages and names (many ties) and
    /// some `nil` ages, from a fixed seed.
    static let people: [Record] = {
        var numbers = FixedSeedNumbers(seed: 0x9E37_79B9_7F4A_7C15)
        return numbers.shuffledKeys(2_000).map { key in
            let age = numbers.next(10) == 0 ? nil : Int64(numbers.next(12))
            return Fixtures.person(key, ["Al", "Bo", "Cy", "Di"][numbers.next(4)], age: age)
        }
    }()

    static let orders: [[RecordSortDescriptor]] = [
        [RecordSortDescriptor(key: "age", ascending: true)],
        [RecordSortDescriptor(key: "age", ascending: false)],
        [RecordSortDescriptor(key: "age", ascending: false), RecordSortDescriptor(key: "name", ascending: true)],
        [RecordSortDescriptor(key: "name", ascending: false), RecordSortDescriptor(key: "age", ascending: true)],
    ]

    @Test(arguments: [0, 1, 2, 7, 100, 499, 500, 1_500, 2_000, 5_000])
    func prefixEqualsTheFullSortsPrefix(count: Int) throws {
        for descriptors in Self.orders {
            let sorter = RecordSorter(schema: Fixtures.schema, sortDescriptors: descriptors)
            var all = Self.people
            try sorter.sort(&all)
            let prefix = try sorter.sortedPrefix(Self.people, count: count)
            #expect(prefix.map(\.id) == all.prefix(count).map(\.id), "\(descriptors.map(\.key)) count \(count)")
        }
    }

    @Test func subEntitiesSharingTheKeyAreRankedTogether() throws {
        let animals = [
            Fixtures.dog(5, "Rex"), Fixtures.cat(3, "Tom"), Fixtures.dog(1, "Ace"),
            Fixtures.cat(4, "Ace"), Fixtures.dog(2, "Zed"), Fixtures.cat(6, "Max"),
        ] + (7...40).map { Fixtures.cat(Int64($0), "Cat \($0)") }
        let sorter = RecordSorter(schema: Fixtures.schema, sortDescriptors: [RecordSortDescriptor(key: "name", ascending: true)])
        // Byte order: "Ace" (dog 1, then cat 4), then "Cat 10" before "Cat 7".
        #expect(try sorter.sortedPrefix(animals, count: 3).map(\.id.key) == [1, 4, 10])
        var all = animals
        try sorter.sort(&all)
        #expect(try sorter.sortedPrefix(animals, count: 8).map(\.id) == all.prefix(8).map(\.id))
    }

    @Test func aSortKeyAnEntityLacksThrowsAsTheFullSortDoes() {
        let animals = [Fixtures.dog(1, "Rex", weight: 3)] + (2...40).map { Fixtures.cat(Int64($0), "Cat \($0)") }
        let sorter = RecordSorter(schema: Fixtures.schema, sortDescriptors: [RecordSortDescriptor(key: "weight", ascending: true)])
        #expect(throws: StorageError.self) { try sorter.sortedPrefix(animals, count: 2) }
    }
}
