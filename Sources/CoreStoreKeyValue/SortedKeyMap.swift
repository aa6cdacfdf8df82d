/// A map from byte-string keys to values in key order (``KeyValueReader``'s order: unsigned
/// bytes, shorter first on a tie): the one sorted in-memory structure of the key-value tier.
///
/// ``BufferedKeyValueWriter`` keeps a write's pending puts and deletes in one (a `nil` value is
/// a delete); ``MemoryKeyValueStore``, and any engine that holds its committed pairs in memory
/// (an append log replayed on open, for example), keeps its data in a
/// `SortedKeyMap<[UInt8]>`, which is itself a ``KeyValueReader``:
/// ```swift
/// var pairs = SortedKeyMap<[UInt8]>()
/// pairs[[1, 2]] = [3]          // put
/// pairs[[1, 2]] = nil          // delete
/// let snapshot = pairs         // a copy is a snapshot: later changes do not reach it
/// try body(snapshot)           // read through it as `any KeyValueReader`
/// ```
///
/// Entries live in sorted chunks of at most ``maximumChunkSize``, so a change moves or copies
/// at most one chunk and the list of chunks: n changes in any order cost
/// O(n · (log n + chunk size)) plus one copy of the chunk list when a snapshot shares it, where
/// a flat sorted array costs O(n²). Ascending insertions (new records under increasing keys)
/// append without a search. Lookups are O(log n).
public struct SortedKeyMap<Value> {
    /// A chunk that grows past this size is split in two.
    public static var maximumChunkSize: Int { 512 }

    fileprivate struct Entry {
        let key: [UInt8]
        var value: Value
    }

    /// Sorted, none empty; every key of a chunk sorts before every key of the next.
    private var chunks: [[Entry]] = []

    /// An empty map.
    public init() {}

    /// Whether the map holds no entry.
    public var isEmpty: Bool { chunks.isEmpty }

    /// The value under `key`; setting `nil` removes the entry.
    public subscript(key: [UInt8]) -> Value? {
        get {
            let position = lowerBound(key)
            guard position.chunk < chunks.count, chunks[position.chunk][position.index].key == key else { return nil }
            return chunks[position.chunk][position.index].value
        }
        set {
            if let newValue { insert(key, newValue) } else { remove(key) }
        }
    }

    /// Visits the entries with `lowerBound <= key < upperBound` (an empty `upperBound` means no
    /// upper bound) in ascending key order, descending when `reverse`, until `visit` returns
    /// `false`.
    public func scan(from lowerBound: [UInt8], to upperBound: [UInt8], reverse: Bool, _ visit: (_ key: [UInt8], _ value: Value) throws -> Bool) rethrows {
        if reverse {
            var (chunk, index) = upperBound.isEmpty ? (chunks.count, 0) : self.lowerBound(upperBound)
            while true {
                if index == 0 {
                    guard chunk > 0 else { return }
                    chunk -= 1
                    index = chunks[chunk].count
                }
                index -= 1
                let entry = chunks[chunk][index]
                if KeyOrder.precedes(entry.key, lowerBound) { return }
                if try !visit(entry.key, entry.value) { return }
            }
        }
        var (chunk, index) = self.lowerBound(lowerBound)
        while chunk < chunks.count {
            let entries = chunks[chunk]
            while index < entries.count {
                let entry = entries[index]
                if !upperBound.isEmpty, !KeyOrder.precedes(entry.key, upperBound) { return }
                if try !visit(entry.key, entry.value) { return }
                index += 1
            }
            (chunk, index) = (chunk + 1, 0)
        }
    }

    private mutating func insert(_ key: [UInt8], _ value: Value) {
        guard let last = chunks.indices.last else {
            chunks = [[Entry(key: key, value: value)]]
            return
        }
        // Past the last key: append without a search, starting a new chunk when the last is full.
        if let lastEntry = chunks[last].last, KeyOrder.precedes(lastEntry.key, key) {
            if chunks[last].count < Self.maximumChunkSize {
                chunks[last].append(Entry(key: key, value: value))
            } else {
                chunks.append([Entry(key: key, value: value)])
            }
            return
        }
        // Not past the last key, so the lower bound lies inside a chunk.
        let (chunk, index) = lowerBound(key)
        if chunks[chunk][index].key == key {
            chunks[chunk][index].value = value
            return
        }
        chunks[chunk].insert(Entry(key: key, value: value), at: index)
        let size = chunks[chunk].count
        if size > Self.maximumChunkSize {
            let tail = Array(chunks[chunk][(size / 2)...])
            chunks[chunk].removeSubrange((size / 2)...)
            chunks.insert(tail, at: chunk + 1)
        }
    }

    private mutating func remove(_ key: [UInt8]) {
        let (chunk, index) = lowerBound(key)
        guard chunk < chunks.count, chunks[chunk][index].key == key else { return }
        chunks[chunk].remove(at: index)
        if chunks[chunk].isEmpty { chunks.remove(at: chunk) }
    }

    /// The position of the first entry with a key `>= key`; `(chunks.count, 0)` when none.
    private func lowerBound(_ key: [UInt8]) -> (chunk: Int, index: Int) {
        var low = 0, high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            if let last = chunks[middle].last, KeyOrder.precedes(last.key, key) { low = middle + 1 } else { high = middle }
        }
        guard low < chunks.count else { return (chunks.count, 0) }
        let entries = chunks[low]
        var lowIndex = 0, highIndex = entries.count
        while lowIndex < highIndex {
            let middle = (lowIndex + highIndex) / 2
            if KeyOrder.precedes(entries[middle].key, key) { lowIndex = middle + 1 } else { highIndex = middle }
        }
        return (low, lowIndex)
    }
}

extension SortedKeyMap: Sendable where Value: Sendable {}
extension SortedKeyMap.Entry: Sendable where Value: Sendable {}

/// A map of byte strings reads as one snapshot: `scan` is the map's own, `get` its subscript.
extension SortedKeyMap: KeyValueReader where Value == [UInt8] {
    /// The value stored under `key`, or `nil`.
    public func get(_ key: [UInt8]) -> [UInt8]? { self[key] }
}
