import Foundation
import Testing
@testable import CoreStoreKeyValue
import CoreStoreStorage

/// `GroupKey`: equal exactly when the values are equal in storage order, and hashed alike then.
@Suite("Group keys")
struct GroupKeyTests {
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
        let ka = GroupKey(values: [a, .string("x")]), kb = GroupKey(values: [b, .string("x")])
        #expect(ka == kb)
        #expect(ka.hashValue == kb.hashValue)
        var groups: [GroupKey: Int] = [ka: 0]
        groups[kb, default: 1] += 10
        #expect(groups.count == 1 && groups[ka] == 10)
    }

    @Test("Values storage order tells apart make separate groups", arguments: 0..<distinctPairs.count)
    func distinctValuesMakeSeparateGroups(_ index: Int) {
        let (a, b) = Self.distinctPairs[index]
        #expect(Value.storageOrder(a, b) != 0)
        #expect(GroupKey(values: [a]) != GroupKey(values: [b]))
        let groups: Set<GroupKey> = [GroupKey(values: [a]), GroupKey(values: [b])]
        #expect(groups.count == 2)
    }
}
