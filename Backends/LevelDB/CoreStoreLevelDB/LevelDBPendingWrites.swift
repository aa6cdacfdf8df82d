import Foundation

/// The puts and deletes of one ``LevelDBEngine/write(_:)`` not yet applied, sorted by key, so
/// that reads inside the write see them on top of the write's snapshot.
///
/// Holds the last operation per key: a value for a put, `nil` for a delete (a tombstone that
/// hides the snapshot's value). Entries live in sorted chunks of at most ``maximumChunkSize``,
/// so an insertion moves at most one chunk and a copy (taken by a scan) shares the chunks it
/// does not change. Lookups and seeks are O(log n).
struct LevelDBPendingWrites {
    /// One pending operation.
    struct Entry {
        let key: [UInt8]
        /// The value put, or `nil` for a delete.
        var value: [UInt8]?
    }

    /// What the pending writes say about one key.
    enum Lookup: Equatable {
        /// The write did not touch the key: read the snapshot.
        case untouched
        /// The write put this value.
        case put([UInt8])
        /// The write deleted the key.
        case deleted
    }

    /// A chunk that grows past this size is split in two.
    static let maximumChunkSize = 1024

    private var chunks: [[Entry]] = []
    /// The number of distinct keys written.
    private(set) var count = 0

    /// Whether nothing was written.
    var isEmpty: Bool { count == 0 }

    /// Records a put (`value`) or a delete (`nil`) of `key`, replacing an earlier one.
    mutating func set(_ key: [UInt8], _ value: [UInt8]?) {
        guard !chunks.isEmpty else {
            chunks = [[Entry(key: key, value: value)]]
            count = 1
            return
        }
        var position = lowerBound(key)
        if position.chunk < chunks.count, LevelDBBytes.compare(chunks[position.chunk][position.index].key, key) == 0 {
            chunks[position.chunk][position.index].value = value
            return
        }
        if position.chunk == chunks.count {
            position = (chunks.count - 1, chunks[chunks.count - 1].count)
        }
        chunks[position.chunk].insert(Entry(key: key, value: value), at: position.index)
        count += 1
        let size = chunks[position.chunk].count
        if size > Self.maximumChunkSize {
            let tail = Array(chunks[position.chunk][(size / 2)...])
            chunks[position.chunk].removeSubrange((size / 2)...)
            chunks.insert(tail, at: position.chunk + 1)
        }
    }

    /// What the write did to `key`.
    func lookup(_ key: [UInt8]) -> Lookup {
        let position = lowerBound(key)
        guard position.chunk < chunks.count else { return .untouched }
        let entry = chunks[position.chunk][position.index]
        guard LevelDBBytes.compare(entry.key, key) == 0 else { return .untouched }
        return entry.value.map(Lookup.put) ?? .deleted
    }

    /// The entry with the smallest key `>= key` (`> key` when `inclusive` is false).
    func first(from key: [UInt8], inclusive: Bool) -> Entry? {
        let position = inclusive ? lowerBound(key) : upperBound(key)
        guard position.chunk < chunks.count else { return nil }
        return chunks[position.chunk][position.index]
    }

    /// The entry with the largest key `< key`; the last entry when `key` is `nil`.
    func last(before key: [UInt8]?) -> Entry? {
        guard let key else { return chunks.last?.last }
        let position = lowerBound(key)
        if position.chunk < chunks.count, position.index > 0 {
            return chunks[position.chunk][position.index - 1]
        }
        let previous = position.chunk - 1
        return previous >= 0 ? chunks[previous].last : nil
    }

    /// Visits every entry in ascending key order.
    func forEach(_ body: (Entry) throws -> Void) rethrows {
        for chunk in chunks {
            for entry in chunk { try body(entry) }
        }
    }

    // MARK: Positions

    /// The position of the first entry with a key `>= key`; `(chunks.count, 0)` when none.
    private func lowerBound(_ key: [UInt8]) -> (chunk: Int, index: Int) {
        bound { LevelDBBytes.compare($0, key) < 0 }
    }

    /// The position of the first entry with a key `> key`; `(chunks.count, 0)` when none.
    private func upperBound(_ key: [UInt8]) -> (chunk: Int, index: Int) {
        bound { LevelDBBytes.compare($0, key) <= 0 }
    }

    /// The first position whose key does not satisfy `before` (which holds for a prefix of
    /// the sorted entries).
    private func bound(_ before: ([UInt8]) -> Bool) -> (chunk: Int, index: Int) {
        var low = 0
        var high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            if let last = chunks[middle].last, before(last.key) { low = middle + 1 } else { high = middle }
        }
        guard low < chunks.count else { return (chunks.count, 0) }
        let chunk = chunks[low]
        var lowIndex = 0
        var highIndex = chunk.count
        while lowIndex < highIndex {
            let middle = (lowIndex + highIndex) / 2
            if before(chunk[middle].key) { lowIndex = middle + 1 } else { highIndex = middle }
        }
        return (low, lowIndex)
    }
}

/// Byte-string helpers.
enum LevelDBBytes {
    /// `memcmp` order, shorter first on a tie: LevelDB's `BytewiseComparator`.
    static func compare(_ lhs: [UInt8], _ rhs: [UInt8]) -> Int {
        lhs.withUnsafeBytes { left in
            rhs.withUnsafeBytes { right in compare(left, right) }
        }
    }

    /// `memcmp` order, shorter first on a tie.
    static func compare(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Int {
        let common = min(left.count, right.count)
        if common > 0, let l = left.baseAddress, let r = right.baseAddress {
            let result = memcmp(l, r, common)
            if result != 0 { return result < 0 ? -1 : 1 }
        }
        return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
    }
}
