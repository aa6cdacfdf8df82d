import Foundation
import Testing
@testable import CoreStoreKeyValue
import CoreStoreStorage

/// `GroupTable`: tuples are one group exactly when their values are equal in storage order, and
/// hash alike then.
@Suite("Group table")
struct GroupTableTests {
    /// Pairs of values that storage order calls equal: they must be one group.
    static let equalPairs: [(Value, Value)] = [
        (.int(1), .double(1.0)),
        (.bool(true), .int(1)),
        (.double(0.0), .double(-0.0)),
        (.double(.nan), .double(-.nan)),
        (.int(7), .decimal(Decimal(7))),
        (.decimal(Decimal(string: "2.5")!), .decimal(Decimal(string: "2.50")!)),
        (.string("ab"), .string("ab")),
        (.null, .null),
    ]

    /// Pairs that storage order tells apart: they must be two groups.
    static let distinctPairs: [(Value, Value)] = [
        (.int(1), .int(2)),
        (.double(0.5), .double(1.5)),
        (.string("\u{E9}"), .string("e\u{301}")),
        (.null, .int(0)),
        (.string("1"), .int(1)),
        (.bytes(Data([1])), .bytes(Data([1, 0]))),
    ]

    @Test("Values equal in storage order make one group with one hash", arguments: 0..<equalPairs.count)
    func equalValuesShareAGroup(_ index: Int) {
        let (a, b) = Self.equalPairs[index]
        #expect(Value.storageOrder(a, b) == 0)
        var table = GroupTable()
        #expect(table.hash([a, .string("x")]) == table.hash([b, .string("x")]))
        #expect(table.findOrAdd([a, .string("x")]) == (0, true))
        #expect(table.findOrAdd([b, .string("x")]) == (0, false))
        #expect(table.index(of: [b, .string("x")]) == 0)
        #expect(table.count == 1)
        // One-key tuples (small whole numbers are found by direct index), in both orders.
        for (first, second) in [(a, b), (b, a)] {
            var single = GroupTable()
            #expect(single.findOrAdd([first]) == (0, true))
            #expect(single.index(of: [second]) == 0)
            #expect(single.findOrAdd([second]) == (0, false))
            #expect(single.index(of: [first]) == 0)
            #expect(single.count == 1)
        }
    }

    /// Whole numbers around the direct index's bounds, in every numeric case, each its own group
    /// and found again whatever case asks.
    @Test("Small whole numbers of any numeric case share their group")
    func smallWholeNumbersShareTheirGroup() {
        var table = GroupTable()
        let numbers: [Int64] = [0, 1, 2, 3, 99, 4_095, 4_096, 4_097, -1]
        for (i, n) in numbers.enumerated() {
            let value: Value = i % 2 == 0 ? .int(n) : .double(Double(n))
            #expect(table.findOrAdd([value]) == (i, true), "\(n)")
        }
        for (i, n) in numbers.enumerated() {
            #expect(table.index(of: [.int(n)]) == i, "\(n)")
            #expect(table.index(of: [.double(Double(n))]) == i, "\(n)")
            #expect(table.index(of: [.decimal(Decimal(n))]) == i, "\(n)")
        }
        #expect(table.index(of: [.bool(true)]) == 1)
        #expect(table.index(of: [.bool(false)]) == 0)
        #expect(table.index(of: [.double(-0.0)]) == 0)
        #expect(table.index(of: [.double(2.5)]) == nil)
        #expect(table.index(of: [.int(5)]) == nil)
        #expect(table.findOrAdd([.double(5)]) == (numbers.count, true))
        #expect(table.findOrAdd([.int(5)]) == (numbers.count, false))
        #expect(table.count == numbers.count + 1)
    }

    @Test("Values storage order tells apart make separate groups", arguments: 0..<distinctPairs.count)
    func distinctValuesMakeSeparateGroups(_ index: Int) {
        let (a, b) = Self.distinctPairs[index]
        #expect(Value.storageOrder(a, b) != 0)
        var table = GroupTable()
        #expect(table.findOrAdd([a]) == (0, true))
        #expect(table.index(of: [b]) == nil)
        #expect(table.findOrAdd([b]) == (1, true))
        #expect(table.count == 2 && table.keys.count == 2)
    }

    @Test("Thousands of groups survive the table's growth, each found again at its index")
    func manyGroups() {
        var table = GroupTable()
        let values: [Value] = (0..<5_000).map { $0 % 3 == 0 ? .string("g\($0)") : .int(Int64($0) * 7_919) }
        for (i, value) in values.enumerated() {
            #expect(table.findOrAdd([value, .null]) == (i, true))
        }
        for (i, value) in values.enumerated() {
            #expect(table.index(of: [value, .null]) == i)
        }
        #expect(table.index(of: [.int(-1), .null]) == nil)
        #expect(table.index(of: [.int(0)]) == nil)
        #expect(table.count == values.count)
    }
}
