import Foundation
import Testing
@testable import CoreStore

/// A sort on a double attribute puts `nil` first, then NaN, then numbers (ascending), on every
/// store: also when the filter compares that attribute, which lets a store skip ranking `nil`
/// and NaN only when no such value can match.
@Suite("Sorting doubles under a filter")
struct NumericSortFilterTests {
    static func stack(_ kind: StoreKind) throws -> DataStack {
        let stack = DataStack(CoreStoreSchema(modelVersion: "Q1", entities: [Entity<Sample>("Sample")], versionLock: nil))
        try stack.addStorageAndWait(kind.makeStore())
        try stack.perform(synchronous: { t in
            for (label, ratio) in [("none", nil), ("nan", Double.nan), ("one", 1), ("three", 3), ("seven", 7)] as [(String, Double?)] {
                let sample = t.create(Into<Sample>())
                sample.label = label
                sample.ratio = ratio
            }
        })
        return stack
    }

    @Test(arguments: StoreKind.allCases)
    func aComparisonKeepsOnlyNumbersInOrder(_ kind: StoreKind) throws {
        let stack = try Self.stack(kind)
        let above = try stack.fetchAll(From<Sample>().where(\.$ratio > 2).orderBy(.descending(\.$ratio)).tweak { $0.fetchLimit = 10 })
        #expect(above.map(\.label) == ["seven", "three"])
    }

    @Test(arguments: StoreKind.allCases)
    func noneOfAComparisonKeepsNilAndNaNRankedFirst(_ kind: StoreKind) throws {
        let stack = try Self.stack(kind)
        let ascending = try stack.fetchAll(From<Sample>().where(format: "NONE ratio > 2").orderBy(.ascending(\.$ratio)).tweak { $0.fetchLimit = 2 })
        #expect(ascending.map(\.label) == ["none", "nan"])
        let descending = try stack.fetchAll(From<Sample>().where(format: "NONE ratio > 2").orderBy(.descending(\.$ratio)))
        #expect(descending.map(\.label) == ["one", "nan", "none"])
    }
}
