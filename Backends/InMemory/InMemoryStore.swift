import Foundation
import CoreStoreStorage
import HashTreeCollections

/// A store that keeps everything in memory: fast, never persistent, ideal for tests and caches.
///
/// Every `InMemoryStore` starts empty and loses its data when closed. Reads run on immutable
/// snapshots (persistent hash trees, so a snapshot costs nothing to take and a commit copies only
/// the paths it changes), so any number of readers proceed while a transaction commits.
///
/// ```swift
/// try dataStack.addStorageAndWait(InMemoryStore())
/// try dataStack.addStorageAndWait(InMemoryStore(configuration: "Cache"))
/// ```
public final class InMemoryStore: StorageInterface {
    /// The configuration whose entities this store holds; `nil` holds every entity.
    public let configuration: String?

    /// In memory: concurrent readers and native filtering and sorting, nothing persistent.
    public var capabilities: StorageCapabilities { [.concurrentReaders, .nativePredicates, .nativeSorting] }

    /// `InMemoryStore`, with its configuration when it has one.
    public var storeDescription: String {
        configuration.map { "InMemoryStore(\"\($0)\")" } ?? "InMemoryStore"
    }

    private let stateLock = NSLock()
    private let writeLock = NSLock()
    private nonisolated(unsafe) var state: InMemoryState?

    /// Creates an empty in-memory store for `configuration` (`nil`: every entity).
    public init(configuration: String? = nil) {
        self.configuration = configuration
    }

    /// Opens the store. An in-memory store is always new, so this returns `nil` the first time;
    /// opening it again (without `close`) returns the metadata of the first open.
    public func open(schema: StoreSchema) throws -> StoredMetadata? {
        writeLock.lock()
        defer { writeLock.unlock() }
        return stateLock.withLock {
            if let existing = state { return existing.metadata }
            let metadata = StoredMetadata(modelVersion: schema.modelVersion, schemaHash: schema.schemaHash)
            state = InMemoryState(schema: schema, metadata: metadata)
            return nil
        }
    }

    /// Runs `body` on a snapshot; never blocks on a running write.
    public func read<T>(_ body: (any StorageReader) throws -> T) throws -> T {
        let snapshot = try currentState()
        return try body(InMemoryReader(state: snapshot))
    }

    /// Applies `changes` atomically: all of it becomes visible at once, or none of it.
    public func write(_ changes: ChangeSet) throws -> CommitInfo {
        writeLock.lock()
        defer { writeLock.unlock() }
        var next = try currentState()
        let (resolved, permanentIDs) = changes.assigningPermanentIDs(startingAt: next.nextKey)
        let stored = next
        let merged = try ChangeMerger.merge(resolved, schema: stored.schema) { ids in ids.map { stored.record(ofKind: $0) } }
        try next.apply(merged)
        next.nextKey += Int64(permanentIDs.count)
        next.sequence += 1
        if let metadata = changes.metadata { next.metadata = metadata }
        let committed = next
        stateLock.withLock { state = committed }
        return CommitInfo(sequence: committed.sequence, permanentIDs: permanentIDs, changes: merged)
    }

    /// Drops every record and the metadata; the next `open` starts a new store.
    public func erase() throws {
        writeLock.lock()
        defer { writeLock.unlock() }
        stateLock.withLock { state = nil }
    }

    /// Drops the data; the store must be opened again before use.
    public func close() {
        writeLock.lock()
        defer { writeLock.unlock() }
        stateLock.withLock { state = nil }
    }

    private func currentState() throws -> InMemoryState {
        guard let snapshot = stateLock.withLock({ state }) else {
            throw StorageError.notOpen(store: storeDescription)
        }
        return snapshot
    }
}
