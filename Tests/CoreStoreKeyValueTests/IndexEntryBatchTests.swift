import Testing
import CoreStoreStorage
@testable import CoreStoreKeyValue

/// The entries of one index of a large insert, handed out in key order.
@Suite("Index entry batches")
struct IndexEntryBatchTests {
    /// The entries a batch hands out, in its order.
    private func visited(_ batch: IndexEntryBatch) -> [[UInt8]] {
        var result: [[UInt8]] = []
        batch.forEachInKeyOrder { result.append(Array($0)) }
        return result
    }

    @Test("Entries come out in byte order")
    func entriesAreSortedStably() {
        var g = SeededGenerator(seed: 5)
        // A shared prefix, then tails that differ early, only after 16 bytes, or not at all,
        // and some shorter than 16 bytes.
        let prefix: [UInt8] = [9, 9, 9]
        var entries: [[UInt8]] = []
        for _ in 0..<300 {
            switch Int.random(in: 0..<4, using: &g) {
            case 0: entries.append(prefix + (0..<Int.random(in: 0...6, using: &g)).map { _ in UInt8.random(in: 0...3, using: &g) })
            case 1: entries.append(prefix + [UInt8](repeating: 1, count: 16) + [UInt8.random(in: 0...3, using: &g)])
            case 2: entries.append(prefix + [UInt8](repeating: 1, count: 16))
            default: entries.append(prefix + (0..<24).map { _ in UInt8.random(in: 0...1, using: &g) })
            }
        }
        var batch = IndexEntryBatch(reservingCapacity: 4, entrySize: 4)
        for entry in entries { batch.append(entry) }
        #expect(batch.count == entries.count)
        #expect(visited(batch) == entries.sorted { $0.lexicographicallyPrecedes($1) })
    }

    @Test("Entries that differ in their first byte, or share no prefix, sort too")
    func noSharedPrefix() {
        let entries: [[UInt8]] = [[3, 0], [1], [2, 5, 5], [1, 0], [], [255]]
        var batch = IndexEntryBatch(reservingCapacity: 0, entrySize: 0)
        for entry in entries { batch.append(entry) }
        #expect(visited(batch) == entries.sorted { $0.lexicographicallyPrecedes($1) })
    }

    @Test("Entries added in ascending order come out as they were added")
    func ascendingEntriesKeepTheirOrder() {
        var batch = IndexEntryBatch(reservingCapacity: 10, entrySize: 4)
        let entries: [[UInt8]] = (0..<50).map { [7, UInt8($0 / 10), UInt8($0 % 10)] }
        for entry in entries { batch.append(entry) }
        #expect(visited(batch) == entries)
    }

    @Test("Entries built in place sort and keep their added order like appended arrays")
    func entriesBuiltInPlace() {
        var g = SeededGenerator(seed: 31)
        let entries: [[UInt8]] = (0..<200).map { _ in [4, 4] + (0..<Int.random(in: 0...20, using: &g)).map { _ in UInt8.random(in: 0...2, using: &g) } }
        var built = IndexEntryBatch(reservingCapacity: 1, entrySize: 1)
        var appended = IndexEntryBatch(reservingCapacity: 1, entrySize: 1)
        for entry in entries {
            built.appendEntry { $0.append(contentsOf: entry) }
            appended.append(entry)
        }
        var inAddedOrder: [[UInt8]] = []
        built.forEachInAddedOrder { inAddedOrder.append(Array($0)) }
        #expect(inAddedOrder == entries)
        #expect(visited(built) == visited(appended))
        #expect(visited(built) == entries.sorted { $0.lexicographicallyPrecedes($1) })
    }

    @Test("Index-shaped entries sort by value, then record key, whichever bytes differ", arguments: [0, 1, 2])
    func indexShapedEntriesSort(shape: Int) {
        var g = SeededGenerator(seed: UInt64(40 + shape))
        let prefix: [UInt8] = [1, 0x20] + Array("Item|i|age".utf8) + [0]
        var entries: [[UInt8]] = []
        for key in Int64(1)...3_000 {
            var entry = prefix
            switch shape {
            case 0: TupleEncoder.encodeInt(Int64.random(in: 0..<100, using: &g), into: &entry)
            case 1: TupleEncoder.encode(.double(Double.random(in: -1e6...1e6, using: &g)), into: &entry)
            default: TupleEncoder.encodeString(["", "a", "ab", "abcdefghijklmnopqrstu"][Int.random(in: 0..<4, using: &g)], into: &entry)
            }
            TupleEncoder.encodeInt(shape == 2 ? Int64.random(in: .min ... .max, using: &g) : key, into: &entry)
            entries.append(entry)
        }
        var batch = IndexEntryBatch(reservingCapacity: entries.count, entrySize: 24)
        for entry in entries { batch.append(entry) }
        #expect(visited(batch) == entries.sorted { $0.lexicographicallyPrecedes($1) })
    }
}
