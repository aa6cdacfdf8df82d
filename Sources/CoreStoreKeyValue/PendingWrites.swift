/// The puts and deletes of one write that are not applied yet, sorted by key: the overlay of
/// ``BufferedKeyValueWriter``.
///
/// Holds the last operation per key: a value for a put, `nil` for a delete (a tombstone that
/// hides the snapshot's value). Entries live in sorted chunks of at most ``maximumChunkSize``,
/// so an insertion moves at most one chunk: a commit that writes n keys in any order costs
/// O(n log n + n · chunk size), not O(n²). Lookups are O(log n).
struct PendingWrites {
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
    static let maximumChunkSize = 512

    private var chunks: [[Entry]] = []

    /// Whether nothing was written.
    var isEmpty: Bool { chunks.isEmpty }

    /// Records a put (`value`) or a delete (`nil`) of `key`, replacing an earlier one.
    mutating func set(_ key: [UInt8], _ value: [UInt8]?) {
        guard !chunks.isEmpty else {
            chunks = [[Entry(key: key, value: value)]]
            return
        }
        // Bulk writes mostly come in ascending key order (new records under increasing keys):
        // append past the last key without a search, starting a new chunk when the last is full.
        let lastChunk = chunks.count - 1
        if let last = chunks[lastChunk].last, KeyOrder.precedes(last.key, key) {
            if chunks[lastChunk].count < Self.maximumChunkSize {
                chunks[lastChunk].append(Entry(key: key, value: value))
            } else {
                chunks.append([Entry(key: key, value: value)])
            }
            return
        }
        var position = lowerBound(key)
        if position.chunk < chunks.count, chunks[position.chunk][position.index].key == key {
            chunks[position.chunk][position.index].value = value
            return
        }
        if position.chunk == chunks.count {
            position = (chunks.count - 1, chunks[chunks.count - 1].count)
        }
        chunks[position.chunk].insert(Entry(key: key, value: value), at: position.index)
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
        guard entry.key == key else { return .untouched }
        return entry.value.map(Lookup.put) ?? .deleted
    }

    /// The entries with `lowerBound <= key < upperBound` (no upper bound when it is empty), in
    /// ascending key order.
    func entries(from lowerBound: [UInt8], to upperBound: [UInt8]) -> [Entry] {
        var position = self.lowerBound(lowerBound)
        var result: [Entry] = []
        while position.chunk < chunks.count {
            let chunk = chunks[position.chunk]
            while position.index < chunk.count {
                let entry = chunk[position.index]
                if !upperBound.isEmpty, !KeyOrder.precedes(entry.key, upperBound) { return result }
                result.append(entry)
                position.index += 1
            }
            position = (position.chunk + 1, 0)
        }
        return result
    }

    /// Visits every entry in ascending key order.
    func forEach(_ body: (Entry) throws -> Void) rethrows {
        for chunk in chunks {
            for entry in chunk { try body(entry) }
        }
    }

    /// The position of the first entry with a key `>= key`; `(chunks.count, 0)` when none.
    private func lowerBound(_ key: [UInt8]) -> (chunk: Int, index: Int) {
        var low = 0, high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            if let last = chunks[middle].last, KeyOrder.precedes(last.key, key) { low = middle + 1 } else { high = middle }
        }
        guard low < chunks.count else { return (chunks.count, 0) }
        let chunk = chunks[low]
        var lowIndex = 0, highIndex = chunk.count
        while lowIndex < highIndex {
            let middle = (lowIndex + highIndex) / 2
            if KeyOrder.precedes(chunk[middle].key, key) { lowIndex = middle + 1 } else { highIndex = middle }
        }
        return (low, lowIndex)
    }
}
