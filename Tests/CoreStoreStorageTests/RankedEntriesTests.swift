import Testing
import CoreStoreStorage

/// `RankedEntries.collect(_:key:_:)` followed by `add` must keep exactly the first entries of a
/// full sort, whatever order the entries come in, and read no more sort values than it needs.
@Suite("Ranked entries: collecting sort values")
struct RankedEntriesTests {
    /// One entry: its sort values (age, name) and record key.
    struct Entry {
        let values: [Value]
        let key: Int64
    }

    /// 1,500 entries with few distinct values (ties on every key, including ties of whole
    /// tuples that only the record key breaks) and some `nil`s, keys shuffled, from a fixed seed.
    static let entries: [Entry] = {
        var numbers = FixedSeedNumbers(seed: 0x2545_F491_4F6C_DD1D)
        return numbers.shuffledKeys(1_500).map { key in
            let age: Value = numbers.next(8) == 0 ? .null : .int(Int64(numbers.next(5)))
            return Entry(values: [age, .string(["Al", "Bo", "Cy"][numbers.next(3)])], key: key)
        }
    }()

    static let orders: [RecordOrder] = [
        RecordOrder([RecordSortDescriptor(key: "age", ascending: true), RecordSortDescriptor(key: "name", ascending: true)]),
        RecordOrder([RecordSortDescriptor(key: "age", ascending: false), RecordSortDescriptor(key: "name", ascending: true)]),
        RecordOrder([RecordSortDescriptor(key: "age", ascending: true), RecordSortDescriptor(key: "name", ascending: false)]),
    ]

    /// The entries in shuffled key order, then in descending key order (every tie arrives with
    /// a lower key than the entries it ties with).
    static let arrivals: [[Entry]] = [entries, entries.sorted { $0.key > $1.key }]

    @Test(arguments: [0, 1, 2, 10, 99, 1_499, 1_500, 3_000])
    func keepsExactlyTheFirstEntriesOfAFullSort(capacity: Int) {
        for order in Self.orders {
            let sorted = Self.entries.sorted { order.precedes($0.values, key: $0.key, $1.values, key: $1.key) }
            let expected = sorted.prefix(capacity).map(\.key)
            for arrival in Self.arrivals {
                var ranking = RankedEntries<Int64>(order: order, capacity: capacity)
                var scratch: [Value] = [.null, .null]
                for entry in arrival {
                    guard ranking.collect(&scratch, key: entry.key, { entry.values[$0] }) else { continue }
                    #expect(scratch == entry.values)
                    ranking.add(scratch, key: entry.key) { entry.key }
                }
                #expect(ranking.payloads() == expected, "\(order.sortDescriptors.map(\.ascending)) capacity \(capacity)")
            }
        }
    }

    /// `ranksAfterKeptEntries(first:)` rejects an entry only when `collect` would, and rejects
    /// every entry whose first value alone puts it after the kept ones.
    @Test(arguments: [1, 2, 10, 99])
    func rankingAfterTheKeptEntriesByTheFirstValueAgreesWithCollecting(capacity: Int) {
        let byKey = Dictionary(uniqueKeysWithValues: Self.entries.map { ($0.key, $0) })
        for order in Self.orders {
            for arrival in Self.arrivals {
                var ranking = RankedEntries<Int64>(order: order, capacity: capacity)
                var scratch: [Value] = [.null, .null]
                var rejectedEarly = 0
                for entry in arrival {
                    let early = ranking.ranksAfterKeptEntries(first: entry.values[0])
                    let kept = ranking.collect(&scratch, key: entry.key, { entry.values[$0] })
                    if early {
                        rejectedEarly += 1
                        #expect(!kept, "capacity \(capacity): \(entry.values) key \(entry.key)")
                    }
                    // Full, and strictly after the last kept entry by the first value: rejected early.
                    let payloads = ranking.payloads()
                    if payloads.count == capacity, let lastKey = payloads.last, let last = byKey[lastKey],
                       order.compare(entry.values[0], last.values[0], atKey: 0) > 0 {
                        #expect(early, "capacity \(capacity): \(entry.values) after \(last.values)")
                    }
                    if kept { ranking.add(scratch, key: entry.key) { entry.key } }
                }
                #expect(rejectedEarly > 0)
            }
        }
        // An empty or unlimited ranking rejects nothing early.
        #expect(!RankedEntries<Int64>(order: Self.orders[0], capacity: nil).ranksAfterKeptEntries(first: .int(9)))
        #expect(!RankedEntries<Int64>(order: Self.orders[0], capacity: 3).ranksAfterKeptEntries(first: .int(9)))
    }

    /// The number form of the early rejection (a first value read straight from a record's
    /// bytes, compared with the last kept entry's without reading it) answers exactly as the
    /// general one, ascending and descending, for integers, doubles (NaN, signed zeros,
    /// infinities) and rankings whose boundary is of the other kind or not a number.
    @Test(arguments: [1, 5, 20])
    func rankingAfterTheKeptEntriesByANumberAgreesWithTheValueForm(capacity: Int) {
        let candidates: [Value] = [
            .int(-3), .int(0), .int(2), .int(7), .double(-0.0), .double(0.0), .double(0.5), .double(2),
            .double(.nan), .double(.infinity), .double(-.infinity), .null, .string("x"),
        ]
        var numbers = FixedSeedNumbers(seed: 0x9E37_79B9_7F4A_7C15)
        for ascending in [true, false] {
            let order = RecordOrder([RecordSortDescriptor(key: "score", ascending: ascending)])
            var ranking = RankedEntries<Int64>(order: order, capacity: capacity)
            var scratch: [Value] = [.null]
            var decidedByNumbers = 0
            for key in Int64(1)...400 {
                let value = candidates[numbers.next(candidates.count)]
                let number: StoredNumber
                switch value {
                case .int(let x): number = .integer(x)
                case .double(let x): number = .double(x)
                default: number = .other
                }
                let early = ranking.ranksAfterKeptEntries(firstNumber: number)
                if case .other = number {
                    #expect(!early)
                } else {
                    #expect(early == ranking.ranksAfterKeptEntries(first: value), "\(value) ascending \(ascending)")
                    if early { decidedByNumbers += 1 }
                }
                if ranking.collect(&scratch, key: key, { _ in value }) { ranking.add(scratch, key: key) { key } }
            }
            #expect(decidedByNumbers > 0)
        }
    }

    @Test func aFullRankingReadsOnlyTheFirstValueOfAnEntryItCanRejectByIt() {
        let order = Self.orders[0]
        var ranking = RankedEntries<Int64>(order: order, capacity: 2)
        for (key, age) in [(Int64(1), Int64(1)), (2, 2)] {
            ranking.add([.int(age), .string("Al")], key: key) { key }
        }
        var scratch: [Value] = [.null, .null]
        var reads: [Int] = []
        // Age 3 ranks after age 2: rejected from its first value.
        #expect(!ranking.collect(&scratch, key: 3, { reads.append($0); return $0 == 0 ? .int(3) : .string("Al") }))
        #expect(reads == [0])
        // Age 0 ranks before: both values read, for the insertion.
        reads = []
        #expect(ranking.collect(&scratch, key: 4, { reads.append($0); return $0 == 0 ? .int(0) : .string("Zed") }))
        #expect(reads == [0, 1])
        #expect(scratch == [.int(0), .string("Zed")])
        // A whole tie with the last kept entry: decided by the record key.
        #expect(!ranking.collect(&scratch, key: 5, { $0 == 0 ? .int(2) : .string("Al") }))
        #expect(ranking.collect(&scratch, key: 0, { $0 == 0 ? .int(2) : .string("Al") }))
    }
}
