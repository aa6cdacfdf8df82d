import CoreStoreStorage

/// Deleting whole key ranges of an engine in writes of bounded size: a generation left by a
/// migration may hold every record of the store, more than one engine write should carry.
extension OrderedKeyValueStore {
    /// The most keys one ``deleteKeys(in:chunkSize:)`` write deletes.
    static var deletionChunkSize: Int { 10_000 }

    /// Deletes every key of `ranges`, at most `chunkSize` per engine write, until none is left.
    /// Each write is atomic, the whole deletion is not: when it stops early (a crash, an error),
    /// the keys left are deleted by the next call.
    func deleteKeys(in ranges: [KeyRange], chunkSize: Int = deletionChunkSize) throws {
        let limit = max(1, chunkSize)
        for range in ranges {
            // Resuming after the last deleted key, rather than at the range's start, keeps
            // engines that leave tombstones, such as LevelDB, from scanning past them again.
            var lower = range.lower
            while true {
                let (count, last) = try deleteFirstKeys(from: lower, to: range.upper, limit: limit)
                guard count == limit, let last else { break }
                lower = last + [0x00]
            }
        }
    }

    /// Deletes, in one atomic write, the first `limit` keys with `lowerBound <= key < upperBound`
    /// (an empty `upperBound`: no bound) through ``write(_:)``, and returns how many it deleted
    /// and the last one.
    public func deleteFirstKeysByScanning(from lowerBound: [UInt8], to upperBound: [UInt8], limit: Int) throws -> (count: Int, last: [UInt8]?) {
        // Collecting and deleting in one write keeps the body repeatable: an engine may run it
        // again (LMDB, after growing its map).
        try write { writer -> (Int, [UInt8]?) in
            var keys: [[UInt8]] = []
            try writer.scan(from: lowerBound, to: upperBound, reverse: false) { key, _ in
                keys.append(key)
                return keys.count < limit
            }
            for key in keys { try writer.delete(key) }
            return (keys.count, keys.last)
        }
    }
}

extension KeyValueReader {
    /// Whether any key of `range` is stored.
    func containsKey(in range: KeyRange) throws -> Bool {
        var found = false
        try scan(from: range.lower, to: range.upper, reverse: false) { _, _ in
            found = true
            return false
        }
        return found
    }
}
