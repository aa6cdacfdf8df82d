extension IndexEntryBatch {
    /// An entry's place in the sort: 16 of its bytes (after the prefix every entry of the batch
    /// shares) as two big-endian integers, which tell most entries apart, and its position.
    struct SortKey {
        let high: UInt64
        let low: UInt64
        let index: Int

        /// The bytes of `entry` after its first `shared`, zero-padded to 16.
        init(_ entry: UnsafeRawBufferPointer, skipping shared: Int, index: Int) {
            var words: (UInt64, UInt64) = (0, 0)
            let count = Swift.min(16, entry.count - shared)
            if count > 0 {
                withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: entry[shared..<shared + count])) }
            }
            high = UInt64(bigEndian: words.0)
            low = UInt64(bigEndian: words.1)
            self.index = index
        }

        /// Sorts `keys` by `(high, low)`, keeping the order of equal ones: a least-significant-
        /// digit radix sort, one counting pass per byte that differs between any two keys. The
        /// entries of one index of a large insert differ in a few bytes (an age, the low bytes of
        /// the record keys), so this takes a few linear passes where a comparison sort takes
        /// some twenty comparisons per key.
        static func radixSort(_ keys: inout [SortKey]) {
            guard let first = keys.first, keys.count > 1 else { return }
            var differingHigh: UInt64 = 0, differingLow: UInt64 = 0
            for key in keys {
                differingHigh |= key.high ^ first.high
                differingLow |= key.low ^ first.low
            }
            var source = keys
            var destination = keys
            var counts = [Int](repeating: 0, count: 256)
            var sortedIntoDestination = false
            // The least significant bytes first: `low`'s, then `high`'s.
            for (isHigh, differing) in [(false, differingLow), (true, differingHigh)] {
                for byte in 0..<8 where (differing >> (8 * byte)) & 0xFF != 0 {
                    let shift = UInt64(8 * byte)
                    source.withUnsafeBufferPointer { source in
                        destination.withUnsafeMutableBufferPointer { destination in
                            counts.withUnsafeMutableBufferPointer { counts in
                                for i in 0..<256 { counts[i] = 0 }
                                for key in source { counts[Int(((isHigh ? key.high : key.low) >> shift) & 0xFF)] += 1 }
                                var position = 0
                                for i in 0..<256 {
                                    let count = counts[i]
                                    counts[i] = position
                                    position += count
                                }
                                for key in source {
                                    let digit = Int(((isHigh ? key.high : key.low) >> shift) & 0xFF)
                                    destination[counts[digit]] = key
                                    counts[digit] += 1
                                }
                            }
                        }
                    }
                    swap(&source, &destination)
                    sortedIntoDestination = true
                }
            }
            if sortedIntoDestination { keys = source }
        }

        /// Sorts each run of keys with equal `(high, low)` (entries alike in their first 16
        /// distinguishing bytes) by `precedes`, which compares entries by position.
        static func sortTies(_ keys: inout [SortKey], by precedes: (_ a: Int, _ b: Int) -> Bool) {
            guard keys.count > 1 else { return }
            var runStart = 0
            for i in 1...keys.count {
                if i < keys.count, keys[i].high == keys[runStart].high, keys[i].low == keys[runStart].low { continue }
                if i - runStart > 1 { keys[runStart..<i].sort { precedes($0.index, $1.index) } }
                runStart = i
            }
        }
    }
}
