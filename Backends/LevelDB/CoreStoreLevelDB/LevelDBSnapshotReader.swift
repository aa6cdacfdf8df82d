import CLevelDB
import CoreStoreKeyValue
import CoreStoreStorage

/// Reads one LevelDB snapshot: `options` are read options bound to it. Valid only inside the
/// ``LevelDBEngine/read(_:)`` or ``LevelDBEngine/write(_:)`` that made it.
struct LevelDBSnapshotReader: KeyValueReader {
    let database: OpaquePointer
    let options: OpaquePointer

    func get(_ key: [UInt8]) throws -> [UInt8]? {
        var length = 0
        let bytes = try LevelDBStatus.call("leveldb_get") { error in
            key.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) {
                    leveldb_get(database, options, $0.baseAddress, $0.count, &length, error)
                }
            }
        }
        guard let bytes else { return nil }
        defer { leveldb_free(bytes) }
        return length > 0 ? Array(UnsafeRawBufferPointer(start: bytes, count: length)) : []
    }

    func scan(from lowerBound: [UInt8], to upperBound: [UInt8], reverse: Bool, _ visit: ([UInt8], [UInt8]) throws -> Bool) throws {
        try scan(from: lowerBound, to: upperBound, reverse: reverse, merging: nil, visit)
    }

    /// Scans the snapshot with `pending` laid over it: a pending put replaces or adds its key,
    /// a pending delete hides it. `pending` is a copy, so writes made by `visit` do not show in
    /// this scan.
    func scan(from lowerBound: [UInt8], to upperBound: [UInt8], reverse: Bool, merging pending: LevelDBPendingWrites?, _ visit: ([UInt8], [UInt8]) throws -> Bool) throws {
        let iterator = LevelDBIterator(database: database, options: options)
        let hasUpper = !upperBound.isEmpty
        if reverse {
            if hasUpper {
                iterator.seek(upperBound)
                if iterator.isValid { iterator.previous() } else { iterator.seekToLast() }
            } else {
                iterator.seekToLast()
            }
            var before: [UInt8]? = hasUpper ? upperBound : nil
            while true {
                var stored: [UInt8]? = iterator.isValid ? iterator.key : nil
                if let key = stored, LevelDBBytes.compare(key, lowerBound) < 0 { stored = nil }
                var overlay = pending?.last(before: before)
                if let entry = overlay, LevelDBBytes.compare(entry.key, lowerBound) < 0 { overlay = nil }
                if let entry = overlay, stored.map({ LevelDBBytes.compare(entry.key, $0) >= 0 }) ?? true {
                    if let key = stored, LevelDBBytes.compare(entry.key, key) == 0 { iterator.previous() }
                    before = entry.key
                    if let value = entry.value, !(try visit(entry.key, value)) { return }
                } else if let key = stored {
                    let value = iterator.value
                    iterator.previous()
                    before = key
                    if !(try visit(key, value)) { return }
                } else {
                    break
                }
            }
        } else {
            if lowerBound.isEmpty { iterator.seekToFirst() } else { iterator.seek(lowerBound) }
            var after: [UInt8]? = nil
            while true {
                var stored: [UInt8]? = iterator.isValid ? iterator.key : nil
                if hasUpper, let key = stored, LevelDBBytes.compare(key, upperBound) >= 0 { stored = nil }
                var overlay = after.map { pending?.first(from: $0, inclusive: false) } ?? pending?.first(from: lowerBound, inclusive: true)
                if hasUpper, let entry = overlay, LevelDBBytes.compare(entry.key, upperBound) >= 0 { overlay = nil }
                if let entry = overlay, stored.map({ LevelDBBytes.compare(entry.key, $0) <= 0 }) ?? true {
                    if let key = stored, LevelDBBytes.compare(entry.key, key) == 0 { iterator.next() }
                    after = entry.key
                    if let value = entry.value, !(try visit(entry.key, value)) { return }
                } else if let key = stored {
                    let value = iterator.value
                    iterator.next()
                    after = key
                    if !(try visit(key, value)) { return }
                } else {
                    break
                }
            }
        }
        try iterator.checkError()
    }
}

/// Reads and writes inside one ``LevelDBEngine/write(_:)``: writes collect in
/// ``LevelDBPendingWrites`` and reads see them over the write's snapshot; the engine applies
/// them as one `leveldb_writebatch` when the body returns.
final class LevelDBWriter: KeyValueWriter {
    private let snapshot: LevelDBSnapshotReader
    private(set) var pending = LevelDBPendingWrites()

    init(snapshot: LevelDBSnapshotReader) {
        self.snapshot = snapshot
    }

    func get(_ key: [UInt8]) throws -> [UInt8]? {
        switch pending.lookup(key) {
        case .put(let value): return value
        case .deleted: return nil
        case .untouched: return try snapshot.get(key)
        }
    }

    func scan(from lowerBound: [UInt8], to upperBound: [UInt8], reverse: Bool, _ visit: ([UInt8], [UInt8]) throws -> Bool) throws {
        try snapshot.scan(from: lowerBound, to: upperBound, reverse: reverse, merging: pending.isEmpty ? nil : pending, visit)
    }

    func put(_ key: [UInt8], _ value: [UInt8]) throws {
        pending.set(key, value)
    }

    func delete(_ key: [UInt8]) throws {
        pending.set(key, nil)
    }
}
