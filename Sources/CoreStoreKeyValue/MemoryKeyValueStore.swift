import Foundation
import CoreStoreStorage

/// A complete ``OrderedKeyValueStore`` in memory: a ``SortedKeyMap`` of pairs, snapshots by
/// copy-on-write, one lock. Used by the tests, and the example for engine authors — this is
/// all an engine has to provide to become a store through ``KeyValueStorage``:
/// ```swift
/// let storage = KeyValueStorage(engine: MemoryKeyValueStore())
/// ```
/// Closing keeps the data (a later ``open()`` finds it again, as with a file); ``destroy()``
/// drops it. The lock guards the committed pairs only: writes are not serialized here, since
/// the caller runs one at a time (``OrderedKeyValueStore`` requirement 4).
public final class MemoryKeyValueStore: OrderedKeyValueStore, @unchecked Sendable {
    private let lock = NSLock()
    private var pairs = SortedKeyMap<[UInt8]>()
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
        try body(try snapshot())
    }

    /// Runs `body` on a private copy of the pairs and publishes it when `body` returns.
    public func write<T>(_ body: (any KeyValueWriter) throws -> T) throws -> T {
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
            pairs = SortedKeyMap()
        }
    }

    private func snapshot() throws -> SortedKeyMap<[UInt8]> {
        try lock.withLock {
            guard isOpen else { throw StorageError.notOpen(store: storeDescription) }
            return pairs
        }
    }

    /// The private working copy of one write.
    private final class Batch: KeyValueWriter {
        var pairs: SortedKeyMap<[UInt8]>

        init(pairs: SortedKeyMap<[UInt8]>) { self.pairs = pairs }

        func get(_ key: [UInt8]) throws -> [UInt8]? { pairs[key] }

        func scan(from lowerBound: [UInt8], to upperBound: [UInt8], reverse: Bool, _ visit: ([UInt8], [UInt8]) throws -> Bool) throws {
            try pairs.scan(from: lowerBound, to: upperBound, reverse: reverse, visit)
        }

        func put(_ key: [UInt8], _ value: [UInt8]) throws { pairs[key] = value }

        func delete(_ key: [UInt8]) throws { pairs[key] = nil }
    }
}
