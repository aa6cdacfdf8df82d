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

    private let lifecycle: StoreLifecycle<InMemoryState>

    /// Creates an empty in-memory store for `configuration` (`nil`: every entity).
    public init(configuration: String? = nil) {
        self.configuration = configuration
        self.lifecycle = StoreLifecycle { configuration.map { "InMemoryStore(\"\($0)\")" } ?? "InMemoryStore" }
    }

    /// Opens the store. An in-memory store is always new, so this returns `nil` the first time;
    /// opening it again (without `close`) returns the metadata of the first open.
    public func open(schema: StoreSchema) throws -> StoredMetadata? {
        if let existing = lifecycle.current { return existing.metadata }
        let metadata = StoredMetadata(modelVersion: schema.modelVersion, schemaHash: schema.schemaHash)
        lifecycle.install(InMemoryState(schema: schema, metadata: metadata))
        return nil
    }

    /// Runs `body` on a snapshot; never blocks on a running write.
    public func read<T>(_ body: (any StorageReader) throws -> T) throws -> T {
        try body(InMemoryReader(state: try lifecycle.open()))
    }

    /// Applies `changes` atomically: the new version is built beside the current one and
    /// published at once, or not at all.
    public func write(_ changes: ChangeSet) throws -> CommitInfo {
        let stored = try lifecycle.open()
        let prepared = try changes.prepareCommit(schema: stored.schema, counters: stored.counters) { ids in ids.map { stored.record(ofKind: $0) } }
        var next = stored
        try next.apply(prepared.changes)
        next.counters = prepared.counters
        if let metadata = prepared.metadata { next.metadata = metadata }
        lifecycle.install(next)
        return prepared.info
    }

    /// Drops every record and the metadata; the next `open` starts a new store.
    public func erase() throws {
        lifecycle.close()
    }

    /// Drops the data; the store must be opened again before use.
    public func close() {
        lifecycle.close()
    }
}
