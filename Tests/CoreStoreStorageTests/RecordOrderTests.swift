import Foundation
import Testing
import CoreStoreStorage

@Suite("Record order")
struct RecordOrderTests {
    let ascending = RecordOrder([RecordSortDescriptor(key: "a", ascending: true)])
    let descending = RecordOrder([RecordSortDescriptor(key: "a", ascending: false)])

    @Test func nilComesFirstAscendingAndLastDescending() {
        #expect(ascending.precedes([.null], key: 9, [.int(Int64.min)], key: 1))
        #expect(descending.precedes([.int(Int64.min)], key: 9, [.null], key: 1))
    }

    @Test func nanComesBeforeEveryNumber() {
        #expect(ascending.precedes([.double(.nan)], key: 9, [.double(-.infinity)], key: 1))
        #expect(ascending.precedes([.double(.nan)], key: 9, [.int(Int64.min)], key: 1))
        #expect(ascending.precedes([.null], key: 9, [.double(.nan)], key: 1))
        #expect(descending.precedes([.int(0)], key: 9, [.double(.nan)], key: 1))
    }

    @Test func twoNaNsTieAndFallToTheRecordKey() {
        #expect(ascending.compareSortValues([.double(.nan)], [.double(-.nan)]) == 0)
        #expect(ascending.precedes([.double(.nan)], key: 1, [.double(.nan)], key: 2))
        #expect(descending.precedes([.double(.nan)], key: 1, [.double(.nan)], key: 2))
    }

    @Test func numbersCompareNumericallyAcrossKinds() {
        #expect(ascending.compareSortValues([.int(2)], [.double(2.0)]) == 0)
        #expect(ascending.compareSortValues([.bool(true)], [.int(1)]) == 0)
        #expect(ascending.compareSortValues([.decimal(Decimal(string: "1.5")!)], [.double(1.5)]) == 0)
        #expect(ascending.precedes([.double(1.5)], key: 9, [.int(2)], key: 1))
        #expect(ascending.precedes([.int(Int64.max)], key: 9, [.double(1e19)], key: 1))
        #expect(ascending.compareSortValues([.double(0.0)], [.double(-0.0)]) == 0)
    }

    @Test func stringsCompareByUTF8BytesAfterNumbers() {
        #expect(ascending.precedes([.string("Z")], key: 9, [.string("a")], key: 1))
        #expect(ascending.precedes([.string("e\u{301}")], key: 9, [.string("\u{e9}")], key: 1))
        #expect(ascending.precedes([.int(Int64.max)], key: 9, [.string("")], key: 1))
        #expect(descending.precedes([.string("")], key: 9, [.int(Int64.max)], key: 1))
    }

    @Test func tiesAreBrokenByAscendingRecordKeyWhateverTheDirection() {
        #expect(ascending.precedes([.int(5)], key: 1, [.int(5)], key: 2))
        #expect(descending.precedes([.int(5)], key: 1, [.int(5)], key: 2))
        #expect(!descending.precedes([.int(5)], key: 2, [.int(5)], key: 1))
        #expect(ascending.compare([.int(5)], key: 3, [.int(5)], key: 3) == 0)
    }

    @Test func withoutSortKeysTheRecordKeyDecides() {
        let none = RecordOrder([])
        #expect(none.keyCount == 0)
        #expect(none.precedes([], key: -4, [], key: 3))
        #expect(!none.precedes([], key: 3, [], key: -4))
    }

    @Test func laterKeysDecideOnlyWhenEarlierOnesTie() {
        let order = RecordOrder([RecordSortDescriptor(key: "a", ascending: false), RecordSortDescriptor(key: "b", ascending: true)])
        #expect(order.precedes([.int(2), .string("z")], key: 9, [.int(1), .string("a")], key: 1))
        #expect(order.precedes([.int(1), .string("a")], key: 9, [.int(1), .string("b")], key: 1))
        #expect(order.compareSortValues([.int(1), .string("a")], [.double(1), .string("a")]) == 0)
    }

    @Test func comparingOneKeyFollowsItsDirection() {
        let order = RecordOrder([RecordSortDescriptor(key: "a", ascending: true), RecordSortDescriptor(key: "b", ascending: false)])
        #expect(order.compare(.int(1), .int(2), atKey: 0) == -1)
        #expect(order.compare(.int(1), .int(2), atKey: 1) == 1)
        #expect(order.compare(.string("x"), .string("x"), atKey: 1) == 0)
    }

    @Test func sortingByTheOrderIsTotalAndMatchesTheSorter() throws {
        let schema = StoreSchema(modelVersion: "V1", schemaHash: "h", entities: [
            EntityDescription(name: "Row", attributes: [
                AttributeDescription(name: "a", type: .double, isOptional: true),
            ], relationships: []),
        ])
        let values: [Value] = [.null, .double(.nan), .double(1), .double(-0.0), .double(0.0), .double(.infinity), .double(1), .null]
        var records = values.enumerated().reversed().map { i, value in
            Record(id: RecordID(entity: "Row", key: Int64(i)), attributes: [value], relationships: [])
        }
        for direction in [true, false] {
            let descriptors = [RecordSortDescriptor(key: "a", ascending: direction)]
            try RecordSorter(schema: schema, sortDescriptors: descriptors).sort(&records)
            let order = RecordOrder(descriptors)
            let ordinals = try order.ordinals(in: "Row", schema: schema)
            for (x, y) in zip(records, records.dropFirst()) {
                #expect(order.precedes(x, ordinals: ordinals, y, ordinals: ordinals))
                #expect(!order.precedes(y, ordinals: ordinals, x, ordinals: ordinals))
            }
        }
    }

    @Test func ordinalsOfAnUnknownKeyThrow() {
        let schema = StoreSchema(modelVersion: "V1", schemaHash: "h", entities: [
            EntityDescription(name: "Row", attributes: [AttributeDescription(name: "a", type: .integer, isOptional: true)], relationships: []),
        ])
        #expect(throws: StorageError.unknownKey(key: "b", entity: "Row")) {
            try RecordOrder([RecordSortDescriptor(key: "b", ascending: true)]).ordinals(in: "Row", schema: schema)
        }
    }
}
