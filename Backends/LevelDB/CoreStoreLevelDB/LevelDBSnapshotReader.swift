import CLevelDB
import CoreStoreKeyValue
import CoreStoreStorage

/// Reads one LevelDB snapshot: `options` are read options bound to it. Valid only inside the
/// ``LevelDBEngine/read(_:)`` or ``LevelDBEngine/write(_:)`` that made it.
struct LevelDBSnapshotReader: KeyValueReader {
    let database: OpaquePointer
    let options: OpaquePointer

    /// `true`: the options `LevelDBDatabase.withSnapshot` binds ask for `verify_checksums`, so
    /// LevelDB checks the CRC-32C of every table block before it returns an entry of it, and
    /// the database was opened with `paranoid_checks`, which checks every log record it
    /// replays. What is in the memtable came from this process's writes or from that log.
    var verifiesStoredBytes: Bool { true }

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
        let iterator = LevelDBIterator(database: database, options: options)
        if reverse {
            if !upperBound.isEmpty {
                iterator.seek(upperBound)
                if iterator.isValid { iterator.previous() } else { iterator.seekToLast() }
            } else {
                iterator.seekToLast()
            }
            while iterator.isValid {
                if iterator.compareKey(with: lowerBound) < 0 { break }
                let key = iterator.key
                let value = iterator.value
                iterator.previous()
                if !(try visit(key, value)) { return }
            }
        } else {
            let bound = ScanUpperBound(upperBound)
            if lowerBound.isEmpty { iterator.seekToFirst() } else { iterator.seek(lowerBound) }
            while iterator.isValid {
                if !bound.admits(iterator.keyInPlace) { break }
                let key = iterator.key
                let value = iterator.value
                iterator.next()
                if !(try visit(key, value)) { return }
            }
        }
        try iterator.checkError()
    }

    /// The ascending scan of the values in place, in the iterator's memory: nothing is copied.
    func scanValues(from lowerBound: [UInt8], to upperBound: [UInt8], _ visit: (UnsafeRawBufferPointer) throws -> Bool) throws {
        try walk(from: lowerBound, to: upperBound) { try visit($0.valueInPlace) }
    }

    /// The ascending scan of the keys in place, in the iterator's memory: nothing is copied.
    func scanKeys(from lowerBound: [UInt8], to upperBound: [UInt8], _ visit: (UnsafeRawBufferPointer) throws -> Bool) throws {
        try walk(from: lowerBound, to: upperBound) { try visit($0.keyInPlace) }
    }

    /// The ascending scan of keys and values in place, in the iterator's memory.
    func scanPairs(from lowerBound: [UInt8], to upperBound: [UInt8], _ visit: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try walk(from: lowerBound, to: upperBound) { try visit($0.keyInPlace, $0.valueInPlace) }
    }

    /// An ascending walk that hands `visit` the iterator at each pair in range.
    private func walk(from lowerBound: [UInt8], to upperBound: [UInt8], _ visit: (LevelDBIterator) throws -> Bool) throws {
        let iterator = LevelDBIterator(database: database, options: options)
        let bound = ScanUpperBound(upperBound)
        if lowerBound.isEmpty { iterator.seekToFirst() } else { iterator.seek(lowerBound) }
        while iterator.isValid {
            if !bound.admits(iterator.keyInPlace) { break }
            if !(try visit(iterator)) { return }
            iterator.next()
        }
        try iterator.checkError()
    }
}
