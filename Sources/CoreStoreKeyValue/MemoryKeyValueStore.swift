import Foundation
import CoreStoreStorage

/// A complete ``OrderedKeyValueStore`` in memory: a sorted array of pairs, snapshots by
/// copy-on-write, one lock. Used by the tests, and the example for engine authors — this is
/// all an engine has to provide to become a store through ``KeyValueStorage``:
/// ```swift
/// let storage = KeyValueStorage(engine: MemoryKeyValueStore())
/// ```
/// Closing keeps the data (a later ``open()`` finds it again, as with a file); ``destroy()``
/// drops it.
public final class MemoryKeyValueStore: OrderedKeyValueStore, @unchecked Sendable {
    typealias Pairs = [(key: [UInt8], value: [UInt8])]

    private let lock = NSLock()
    private let writeLock = NSLock()
    private var pairs: Pairs = []
    private var isOpen = false

    /// A name for logs and errors.
    public let storeDescription: String

    /// Never durable: the data lives as long as the object.
    public var isDurable: Bool { false }

    /// An empty store, not yet open.
    public init(name: String = "MemoryKeyValueStore") {
        storeDescription = name
    }

    /// Opens the store (creating it empty the first time).
    public func open() throws {
        lock.withLock { isOpen = true }
    }

    /// Runs `body` on the committed pairs; a concurrent write does not affect it.
    public func read<T>(_ body: (any KeyValueReader) throws -> T) throws -> T {
        try body(Batch(pairs: try snapshot()))
    }

    /// Runs `body` on a private copy of the pairs and publishes it when `body` returns.
    public func write<T>(_ body: (any KeyValueWriter) throws -> T) throws -> T {
        writeLock.lock()
        defer { writeLock.unlock() }
        let batch = Batch(pairs: try snapshot())
        let result = try body(batch)
        try lock.withLock {
            guard isOpen else { throw StorageError.notOpen(store: storeDescription) }
            pairs = batch.pairs
        }
        return result
    }

    /// Marks the store closed; the data stays for the next ``open()``.
    public func close() {
        lock.withLock { isOpen = false }
    }

    /// Closes the store and drops every pair.
    public func destroy() throws {
        lock.withLock {
            isOpen = false
            pairs = []
        }
    }

    private func snapshot() throws -> Pairs {
        try lock.withLock {
            guard isOpen else { throw StorageError.notOpen(store: storeDescription) }
            return pairs
        }
    }

    /// A snapshot (for reads) or a private working copy (for writes).
    private final class Batch: KeyValueWriter {
        var pairs: Pairs

        init(pairs: Pairs) { self.pairs = pairs }

        /// The index of the first pair whose key is not below `key`.
        func position(_ key: [UInt8]) -> Int {
            var low = 0, high = pairs.count
            while low < high {
                let mid = (low + high) / 2
                if KeyOrder.precedes(pairs[mid].key, key) { low = mid + 1 } else { high = mid }
            }
            return low
        }

        func get(_ key: [UInt8]) throws -> [UInt8]? {
            let i = position(key)
            return i < pairs.count && pairs[i].key == key ? pairs[i].value : nil
        }

        func scan(from lowerBound: [UInt8], to upperBound: [UInt8], reverse: Bool, _ visit: ([UInt8], [UInt8]) throws -> Bool) throws {
            let start = position(lowerBound)
            let end = upperBound.isEmpty ? pairs.count : position(upperBound)
            guard start < end else { return }
            for i in reverse ? Array((start..<end).reversed()) : Array(start..<end) {
                if try !visit(pairs[i].key, pairs[i].value) { return }
            }
        }

        func put(_ key: [UInt8], _ value: [UInt8]) throws {
            let i = position(key)
            if i < pairs.count && pairs[i].key == key { pairs[i].value = value } else { pairs.insert((key, value), at: i) }
        }

        func delete(_ key: [UInt8]) throws {
            let i = position(key)
            if i < pairs.count && pairs[i].key == key { pairs.remove(at: i) }
        }
    }
}
