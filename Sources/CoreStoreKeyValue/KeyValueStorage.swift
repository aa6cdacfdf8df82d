import Foundation
import CoreStoreStorage

/// A complete CoreStore store over any sorted byte map: records, indexes, uniqueness,
/// planning, filtering, sorting and aggregates, written once for every
/// ``OrderedKeyValueStore`` engine.
///
/// A backend wraps its engine in one of these and forwards the ``StorageInterface``
/// requirements to it (see the module's README):
/// ```swift
/// let storage = KeyValueStorage(engine: MemoryKeyValueStore())
/// let metadata = try storage.open(schema: schema)   // nil: a new store
/// ```
/// The key layout is described by ``KeyValueLayout``; fetches are planned by ``FetchPlanner``.
public final class KeyValueStorage<Engine: OrderedKeyValueStore>: StorageInterface, @unchecked Sendable {
    /// The engine holding the bytes.
    public let engine: Engine
    /// The configuration whose entities this store holds; `nil` holds every entity.
    public let configuration: String?

    /// Persistent, concurrent readers, native filtering and sorting; durable when the engine is.
    public var capabilities: StorageCapabilities {
        var capabilities: StorageCapabilities = [.persistent, .concurrentReaders, .nativePredicates, .nativeSorting]
        if engine.isDurable { capabilities.insert(.durableCommits) }
        return capabilities
    }

    /// The engine's description.
    public var storeDescription: String { engine.storeDescription }

    private let lifecycle: StoreLifecycle<KeyValueLayout>

    /// A store over `engine` for `configuration` (`nil`: every entity). Nothing is opened yet.
    public init(engine: Engine, configuration: String? = nil) {
        self.engine = engine
        self.configuration = configuration
        self.lifecycle = StoreLifecycle { engine.storeDescription }
    }

    // MARK: - Lifecycle

    /// Opens the engine; a new (empty) store is initialized for `schema` and `nil` returned. An
    /// existing store returns its metadata and is not modified, also when its schema hash
    /// differs. Anything without valid metadata throws ``StorageError/incompatibleStore(path:reason:)``.
    public func open(schema: StoreSchema) throws -> StoredMetadata? {
        if lifecycle.isOpen {
            return try engine.read { try Self.storedMetadata($0, description: storeDescription) }
        }
        try engine.open()
        do {
            // Read first: an existing store is never written to by `open`.
            let (stored, isEmpty) = try engine.read { reader -> (StoredMetadata?, Bool) in
                if let metadata = try Self.storedMetadata(reader, description: storeDescription) { return (metadata, false) }
                var isEmpty = true
                try reader.scan(from: [], to: [], reverse: false) { _, _ in
                    isEmpty = false
                    return false
                }
                return (nil, isEmpty)
            }
            if stored == nil {
                guard isEmpty else {
                    throw StorageError.incompatibleStore(path: storeDescription, reason: "it holds data but no CoreStore metadata")
                }
                try engine.write { writer in
                    try writer.put(KeyValueLayout.metadataKey("format"), TupleEncoder.encode([.int(KeyValueLayout.formatVersion)]))
                    try writer.put(KeyValueLayout.metadataKey("metadata"), Self.encode(StoredMetadata(modelVersion: schema.modelVersion, schemaHash: schema.schemaHash)))
                    try writer.put(KeyValueLayout.metadataKey("nextKey"), TupleEncoder.encode([.int(1)]))
                    try writer.put(KeyValueLayout.metadataKey("sequence"), TupleEncoder.encode([.int(0)]))
                }
            }
            lifecycle.install(KeyValueLayout(schema: schema))
            return stored
        } catch {
            engine.close()
            throw error
        }
    }

    /// Runs `body` on one engine snapshot.
    public func read<T>(_ body: (any StorageReader) throws -> T) throws -> T {
        let layout = try lifecycle.open()
        return try engine.read { snapshot in
            try body(KeyValueStorageReader(snapshot: snapshot, layout: layout))
        }
    }

    /// Applies `changes` in one engine write: permanent identifiers from the stored key counter,
    /// records merged with the stored ones, index entries, the counters and (when set) the
    /// metadata — all or nothing.
    public func write(_ changes: ChangeSet) throws -> CommitInfo {
        let layout = try lifecycle.open()
        return try engine.write { writer in
            let counters = CommitCounters(
                nextKey: try Self.counter(writer, "nextKey", description: storeDescription),
                sequence: UInt64(try Self.counter(writer, "sequence", description: storeDescription))
            )
            let commit = KeyValueCommit(writer: writer, layout: layout)
            let prepared = try changes.prepareCommit(schema: layout.schema, counters: counters) { ids in try commit.load(ids) }
            try commit.write(prepared.changes)
            if prepared.counters.nextKey != counters.nextKey {
                try writer.put(KeyValueLayout.metadataKey("nextKey"), TupleEncoder.encode([.int(prepared.counters.nextKey)]))
            }
            try writer.put(KeyValueLayout.metadataKey("sequence"), TupleEncoder.encode([.int(Int64(prepared.counters.sequence))]))
            if let metadata = prepared.metadata {
                try writer.put(KeyValueLayout.metadataKey("metadata"), Self.encode(metadata))
            }
            return prepared.info
        }
    }

    /// Destroys the engine's data; the next ``open(schema:)`` starts a new store.
    public func erase() throws {
        lifecycle.close()
        try engine.destroy()
    }

    /// Closes the engine; later calls throw ``StorageError/notOpen(store:)``.
    public func close() {
        lifecycle.close()
        engine.close()
    }

    // MARK: - Metadata

    /// The stored metadata, `nil` when the store has none at all; throws when it is garbled or
    /// of a newer format.
    static func storedMetadata(_ reader: any KeyValueReader, description: String) throws -> StoredMetadata? {
        let format = try reader.get(KeyValueLayout.metadataKey("format"))
        let blob = try reader.get(KeyValueLayout.metadataKey("metadata"))
        if format == nil && blob == nil { return nil }
        guard let format, let blob, let values = try? TupleDecoder.decode(format), values == [.int(KeyValueLayout.formatVersion)] else {
            throw StorageError.incompatibleStore(path: description, reason: "its metadata is missing, damaged or of an unknown format version")
        }
        do {
            _ = try counter(reader, "nextKey", description: description)
            _ = try counter(reader, "sequence", description: description)
            return try decode(blob)
        } catch {
            throw StorageError.incompatibleStore(path: description, reason: "its metadata is damaged (\(error))")
        }
    }

    /// The stored counter `name`. `description` is only evaluated for the error: it can cost a
    /// file-path conversion, and this runs in every write.
    private static func counter(_ reader: any KeyValueReader, _ name: String, description: @autoclosure () -> String) throws -> Int64 {
        guard let bytes = try reader.get(KeyValueLayout.metadataKey(name)),
              let values = try? TupleDecoder.decode(bytes), values.count == 1, case .int(let value) = values[0] else {
            throw StorageError.incompatibleStore(path: description(), reason: "its '\(name)' counter is missing or damaged")
        }
        return value
    }

    static func encode(_ metadata: StoredMetadata) -> [UInt8] {
        var w = ByteWriter()
        w.byte(1)
        w.string(metadata.modelVersion)
        w.string(metadata.schemaHash)
        w.varint(UInt64(metadata.userInfo.count))
        for (key, value) in metadata.userInfo.sorted(by: { $0.key < $1.key }) {
            w.string(key)
            w.string(value)
        }
        return w.bytes
    }

    static func decode(_ bytes: [UInt8]) throws -> StoredMetadata {
        var r = ByteReader(bytes, what: "metadata")
        guard try r.byte() == 1 else { throw r.damaged("unknown metadata version") }
        var metadata = StoredMetadata(modelVersion: try r.string(), schemaHash: try r.string())
        let count = try r.count()
        for _ in 0..<count {
            let key = try r.string()
            metadata.userInfo[key] = try r.string()
        }
        guard r.isAtEnd else { throw r.damaged("trailing bytes") }
        return metadata
    }
}
