import Foundation
import Testing
import CoreStoreKeyValue

@Suite("SortedKeyMap: the tier's sorted in-memory map")
struct SortedKeyMapTests {
    @Test func putsAndDeletesInAnyOrderMatchAModel() throws {
        var generator = SeededGenerator(seed: 7)
        var map = SortedKeyMap<[UInt8]>()
        var model: [[UInt8]: [UInt8]] = [:]
        // Enough keys for many chunks, so that splits and emptied chunks are exercised.
        for step in 0..<6_000 {
            let key = [UInt8](repeating: 0, count: Int.random(in: 0...2, using: &generator)).map { _ in UInt8.random(in: 0...40, using: &generator) }
                + (step % 3 == 0 ? [0xFF] : [])
            if Int.random(in: 0..<4, using: &generator) == 0 {
                map[key] = nil
                model[key] = nil
            } else {
                let value = [UInt8(step & 0xFF)]
                map[key] = value
                model[key] = value
            }
        }
        for key in model.keys { #expect(map.get(key) == model[key]) }
        #expect(map.get([0xFE, 0xFE, 0xFE]) == nil)
        try expectScansMatch(map, model)
        #expect(try collect(map).count == model.count)
    }

    @Test func ascendingInsertsAndDeletingEverythingLeaveAnEmptyMap() throws {
        var map = SortedKeyMap<[UInt8]>()
        let keys = (0..<2_000).map { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        for key in keys { map[key] = key }
        #expect(try collect(map, reverse: true).map(\.key) == keys.reversed())
        for key in keys.reversed() { map[key] = nil }
        #expect(map.isEmpty)
        #expect(try collect(map) == [])
    }

    @Test func aCopyIsASnapshot() throws {
        var map = SortedKeyMap<[UInt8]>()
        for index in 0..<1_500 { map[[UInt8(index >> 8), UInt8(index & 0xFF)]] = [1] }
        let snapshot = map
        map[[0, 0]] = [2]
        map[[0, 1]] = nil
        map[[9]] = [3]
        #expect(snapshot.get([0, 0]) == [1])
        #expect(snapshot.get([0, 1]) == [1])
        #expect(snapshot.get([9]) == nil)
        #expect(try collect(snapshot).count == 1_500)
        #expect(try collect(map).count == 1_500)
    }

    @Test func optionalValuesKeepTombstonesApartFromMissingKeys() {
        var pending = SortedKeyMap<[UInt8]?>()
        pending[[1]] = .some(nil)
        pending[[2]] = .some([5])
        #expect(pending[[1]] == .some(nil))
        #expect(pending[[2]] == .some([5]))
        #expect(pending[[3]] == nil)
    }
}
