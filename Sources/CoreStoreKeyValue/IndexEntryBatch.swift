import Foundation
import CoreStoreStorage

/// The index entries of many records for one index pass of a commit, built into one buffer and
/// handed out in ascending key order.
///
/// Engines that keep their position in a B-tree between puts (LMDB) skip the descent from the
/// root when a key belongs on the page the previous put wrote; entries put in key order hit
/// the same page many times in a row, while the entries of a large insert in record order
/// (ages, names, dates) land all over the index. Entries that already ascend in record order,
/// such as those of an identifier assigned in sequence, are not sorted again.
struct IndexEntryBatch {
    /// Every entry's bytes, one after the other.
    private var bytes: [UInt8] = []
    /// Where each entry starts in ``bytes``; one more element than there are entries, and
    /// empty (no array made) until the first entry: most commits leave their batches empty.
    private var starts: [Int] = []
    /// Whether every entry so far sorts after the one before.
    private var ascending = true
    /// How many leading bytes every entry so far has in common with the first.
    private var sharedPrefixCount = Int.max

    /// An empty batch with room for `count` entries of about `size` bytes each.
    init(reservingCapacity count: Int, entrySize size: Int) {
        guard count > 0 else { return }
        bytes.reserveCapacity(count * size)
        starts.reserveCapacity(count + 1)
    }

    /// The number of entries.
    var count: Int { Swift.max(starts.count - 1, 0) }

    /// Adds `entry`.
    mutating func append(_ entry: [UInt8]) {
        appendEntry { $0.append(contentsOf: entry) }
    }

    /// Adds the entry that `build` appends to the batch's bytes (written in place: no array
    /// per entry).
    mutating func appendEntry(_ build: (inout [UInt8]) -> Void) {
        if starts.isEmpty { starts.append(0) }
        let start = bytes.count
        build(&bytes)
        if count > 0 {
            let previousStart = starts[starts.count - 2]
            let (ascends, shared) = bytes.withUnsafeBufferPointer { all in
                let previous = UnsafeBufferPointer(rebasing: all[previousStart..<start])
                let next = UnsafeBufferPointer(rebasing: all[start...])
                return (!ascending || BytewiseOrder.compare(previous, next) < 0,
                        Self.sharedPrefixCount(all, next, atMost: sharedPrefixCount))
            }
            ascending = ascending && ascends
            sharedPrefixCount = shared
        } else {
            sharedPrefixCount = bytes.count - start
        }
        starts.append(bytes.count)
    }

    /// How many of the first `limit` bytes of `first` and `other` are equal.
    private static func sharedPrefixCount(_ first: UnsafeBufferPointer<UInt8>, _ other: UnsafeBufferPointer<UInt8>, atMost limit: Int) -> Int {
        let n = Swift.min(limit, first.count, other.count)
        guard n > 0, let a = first.baseAddress, let b = other.baseAddress else { return 0 }
        // Entries of one index share their prefix: one comparison answers for most.
        if memcmp(a, b, n) == 0 { return n }
        var i = 0
        while a[i] == b[i] { i += 1 }
        return i
    }

    /// Visits the entries in the order they were added; the bytes are valid only during the
    /// call.
    func forEachInAddedOrder(_ visit: (_ entry: UnsafeRawBufferPointer) throws -> Void) rethrows {
        try bytes.withUnsafeBytes { all in
            for i in 0..<count {
                try visit(UnsafeRawBufferPointer(rebasing: all[starts[i]..<starts[i + 1]]))
            }
        }
    }

    /// Visits the entries in ascending byte order (equal entries in the order they were
    /// added); the bytes are valid only during the call.
    func forEachInKeyOrder(_ visit: (_ entry: UnsafeRawBufferPointer) throws -> Void) rethrows {
        try bytes.withUnsafeBytes { all in
            let base = all.baseAddress.unsafelyUnwrapped
            try starts.withUnsafeBufferPointer { starts in
                func entry(_ i: Int) -> UnsafeRawBufferPointer {
                    UnsafeRawBufferPointer(start: base + starts[i], count: starts[i + 1] - starts[i])
                }
                if ascending {
                    for i in 0..<count { try visit(entry(i)) }
                    return
                }
                // Sorted by the first 16 bytes after the prefix every entry shares (see
                // ``SortKey``), and by all the bytes only where those tie.
                let shared = sharedPrefixCount
                var order: [SortKey] = []
                order.reserveCapacity(count)
                for i in 0..<count { order.append(SortKey(entry(i), skipping: shared, index: i)) }
                SortKey.radixSort(&order)
                SortKey.sortTies(&order) { a, b in
                    let c = BytewiseOrder.compare(entry(a).assumingMemoryBound(to: UInt8.self),
                                                  entry(b).assumingMemoryBound(to: UInt8.self))
                    return c < 0 || (c == 0 && a < b)
                }
                for key in order { try visit(entry(key.index)) }
            }
        }
    }
}
