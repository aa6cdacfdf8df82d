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
}
