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
        // Where the next write starts: the ranges before `range` are empty, and so is `range`
        // before `lower` (resuming there, rather than at the range's start, keeps engines that
        // leave tombstones, such as LevelDB, from scanning past the deleted keys again).
        var range = 0
        var lower = ranges.first?.lower ?? []
        while range < ranges.count {
            // Collecting and deleting in one write keeps the body repeatable: an engine may run
            // it again (LMDB, after growing its map).
            let (keys, next) = try write { writer -> (Int, (range: Int, lower: [UInt8])) in
                var keys: [[UInt8]] = []
                var position = (range: range, lower: lower)
                while position.range < ranges.count {
                    try writer.scan(from: position.lower, to: ranges[position.range].upper, reverse: false) { key, _ in
                        keys.append(key)
                        return keys.count < limit
                    }
                    if keys.count == limit, let last = keys.last {
                        position.lower = last + [0x00]
                        break
                    }
                    position.range += 1
                    if position.range < ranges.count { position.lower = ranges[position.range].lower }
                }
                for key in keys { try writer.delete(key) }
                return (keys.count, position)
            }
            if keys < limit { return }
            (range, lower) = next
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
