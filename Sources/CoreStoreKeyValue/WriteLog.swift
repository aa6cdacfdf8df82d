/// Puts and deletes in the order they were made, every key and value copied into one growing
/// byte buffer: appending a write costs no array of its own (a large commit makes hundreds of
/// thousands), and reading the log back lends each key and value in place.
struct WriteLog {
    /// Where one write's bytes are: the key from `keyStart`, the value right after it.
    private struct Entry {
        let keyStart: Int
        let keyCount: Int
        /// The value's byte count; `-1` for a delete.
        let valueCount: Int
    }

    private var bytes: [UInt8] = []
    private var entries: [Entry] = []

    /// Whether the log holds no write.
    var isEmpty: Bool { entries.isEmpty }

    /// The room the first write reserves: enough for a small commit's writes, which otherwise
    /// grew both buffers from nothing, reallocating each several times per commit.
    private static let initialBytes = 1024, initialEntries = 16

    /// Appends a put of `value` under `key`, or a delete of `key` when `value` is `nil`.
    mutating func append(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer?) {
        if entries.capacity == 0 {
            entries.reserveCapacity(Self.initialEntries)
            bytes.reserveCapacity(Self.initialBytes)
        }
        entries.append(Entry(keyStart: bytes.count, keyCount: key.count, valueCount: value?.count ?? -1))
        bytes.append(contentsOf: key)
        if let value { bytes.append(contentsOf: value) }
    }

    /// Calls `body` with each write in order: its key and its value (`nil` for a delete), both
    /// valid only until `body` returns.
    func forEach(_ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer?) throws -> Void) rethrows {
        try bytes.withUnsafeBytes { all in
            for entry in entries {
                let valueStart = entry.keyStart + entry.keyCount
                let key = UnsafeRawBufferPointer(rebasing: all[entry.keyStart..<valueStart])
                let value = entry.valueCount < 0 ? nil : UnsafeRawBufferPointer(rebasing: all[valueStart..<valueStart + entry.valueCount])
                try body(key, value)
            }
        }
    }

    /// Empties the log, keeping its buffers for the next writes.
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        entries.removeAll(keepingCapacity: true)
    }
}
