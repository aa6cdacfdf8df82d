import CoreStoreStorage
import HashTreeCollections

/// The records of each concrete entity in ascending key order, kept in persistent chunks of
/// consecutive keys: the order every unsorted read returns, available without sorting, and a
/// scan over contiguous arrays instead of a walk through the nodes of a large hash tree.
///
/// Chunk `c` of an entity holds its records with keys in `c * 64 ..< (c + 1) * 64`, sorted by key;
/// empty chunks are dropped, so the layout is a function of the records alone. Keys are handed
/// out in increasing order, so inserts append to the last chunk. Like every map of the state, the
/// chunk map is a persistent hash tree and the chunks are copy-on-write arrays: copying a state
/// copies nothing, and a commit copies only the chunks it changes.
///
/// Maintained by ``InMemoryIndexes/add(_:)`` and ``InMemoryIndexes/remove(_:)`` with the other
/// indexes: every stored record is in exactly one chunk, in its current version.
struct KeyOrderedChunks: Sendable {
    /// A chunk's number is its records' key shifted right by this many bits (64 keys a chunk).
    static let chunkShift: Int64 = 6

    /// For each concrete entity, its chunks by number.
    private(set) var chunks: [String: TreeDictionary<Int64, [Record]>] = [:]

    /// Adds `record` to its entity's chunk, replacing a record with the same key.
    mutating func add(_ record: Record) {
        let key = record.id.key
        chunks[record.id.entity, default: [:]].updateValue(forKey: key >> Self.chunkShift, default: []) { chunk in
            guard let last = chunk.last, last.id.key >= key else {
                chunk.append(record)
                return
            }
            let position = Self.position(of: key, in: chunk)
            if chunk[position].id.key == key {
                chunk[position] = record
            } else {
                chunk.insert(record, at: position)
            }
        }
    }

    /// Removes the record with `record`'s identifier from its entity's chunk.
    mutating func remove(_ record: Record) {
        let key = record.id.key
        chunks[record.id.entity]?.updateValue(forKey: key >> Self.chunkShift) { chunk in
            guard var records = chunk else { return }
            // Moved out of the map, so the array is mutated in place when nothing else shares it.
            chunk = nil
            let position = Self.position(of: key, in: records)
            if position < records.count, records[position].id.key == key { records.remove(at: position) }
            if !records.isEmpty { chunk = records }
        }
    }

    /// The record of the concrete `entity` with `key`, if there is one: a lookup in a map with one
    /// entry per 64 keys, then a binary search in a small array.
    func record(_ key: Int64, of entity: String) -> Record? {
        guard let chunk = chunks[entity]?[key >> Self.chunkShift] else { return nil }
        let position = Self.position(of: key, in: chunk)
        return position < chunk.count && chunk[position].id.key == key ? chunk[position] : nil
    }

    /// The chunks of the concrete `entity`, in ascending key order (each sorted by key).
    func orderedChunks(of entity: String) -> [[Record]] {
        guard let map = chunks[entity] else { return [] }
        return map.sorted { $0.key < $1.key }.map(\.value)
    }

    /// The position of the first record of `chunk` whose key is not below `key`.
    private static func position(of key: Int64, in chunk: [Record]) -> Int {
        var low = 0, high = chunk.count
        while low < high {
            let middle = (low + high) / 2
            if chunk[middle].id.key < key { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
