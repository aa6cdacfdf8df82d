import Foundation
import CoreStoreStorage

/// A complete CoreStore store over any sorted byte map: records, indexes, uniqueness,
/// planning, filtering, sorting and aggregates, written once for every
/// ``OrderedKeyValueStore`` engine.
///
/// A backend wraps its engine in one of these and forwards the `StorageInterface`
/// requirements to it (see the module's README):
/// ```swift
/// let storage = KeyValueStorage(engine: MemoryKeyValueStore())
/// let metadata = try storage.open(schema: schema)   // nil: a new store
/// ```
/// The key layout is described by ``KeyValueLayout``; fetches are planned by ``FetchPlanner``;
/// migrations write the next ``KeyValueGeneration`` of the keys (see
/// ``beginMigration(from:to:)``).
public final class KeyValueStorage<Engine: OrderedKeyValueStore>: StorageInterface, ReadOnlyOpening, @unchecked Sendable {
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

    /// While open, the layout of the schema and generation in use.
    let lifecycle: StoreLifecycle<KeyValueLayout>
    /// The migration in progress, while one is (see ``beginMigration(from:to:)``).
    let migrationSlot = KeyValueMigrationSlot()
    /// The counters the last successful write stored, and the generation they belong to.
    /// This storage is the only writer of its open store (writes come one at a time, and the
    /// engine refuses a second opener), so the next write starts from them instead of reading
    /// them back: two engine reads fewer per commit. Forgotten at every open, close and erase.
    private let latestCounters = LatestCounters()
    /// Whether the open store was opened with ``openForReading(schema:)``. Set and read only by
    /// `open`, `write`, `erase` and `close`, which the caller serializes.
    private var isOpenForReading = false

    /// A store over `engine` for `configuration` (`nil`: every entity). Nothing is opened yet.
    public init(engine: Engine, configuration: String? = nil) {
        self.engine = engine
        self.configuration = configuration
        self.lifecycle = StoreLifecycle { engine.storeDescription }
    }

    // MARK: - Lifecycle

    /// Opens the engine; a new (empty) store is initialized for `schema` at generation 0 and
    /// `nil` returned. An existing store returns the metadata of the generation its root pointer
    /// names (see ``KeyValueGeneration``) and is not modified, also when its schema hash differs
    /// — except that the keys of other generations, left by a migration that a crash
    /// interrupted, are deleted (in writes of bounded size). Anything without valid metadata
    /// throws `StorageError/incompatibleStore(path:reason:)`; so does a store being migrated.
    public func open(schema: StoreSchema) throws -> StoredMetadata? {
        if let layout = lifecycle.current {
            return try engine.read { try Self.storedMetadata($0, generation: layout.generation, description: storeDescription) }
        }
        try migrationSlot.requireVacant(storeDescription)
        var found: StoredState?
        // A store whose metadata cannot be read is refused with its files as they were.
        try engine.open(confirmingWith: { found = try storedState() })
        do {
            guard let stored = found else { throw StorageError.engine(code: 0, message: "\(storeDescription) opened without reading its state") }
            if stored.metadata == nil {
                guard stored.isEmpty else {
                    throw StorageError.incompatibleStore(path: storeDescription, reason: "it holds data but no CoreStore metadata")
                }
                let metadata = StoredMetadata(modelVersion: schema.modelVersion, schemaHash: schema.schemaHash)
                try engine.write { writer in
                    try Self.putMetadata(writer, generation: stored.generation, metadata: metadata, counters: CommitCounters())
                }
            } else if stored.hasOtherGenerations {
                try engine.deleteKeys(in: stored.generation.otherRanges)
            }
            latestCounters.forget()
            lifecycle.install(KeyValueLayout(schema: schema, generation: stored.generation.number))
            return stored.metadata
        } catch {
            engine.close()
            throw error
        }
    }

    /// Opens an existing store for reads only (see `ReadOnlyOpening`): no metadata is written
    /// to an empty engine, and another generation left by a crashed migration is left in place.
    public func openForReading(schema: StoreSchema) throws -> StoredMetadata {
        guard lifecycle.current == nil else { throw StorageError.invalidRequest("\(storeDescription) is already open") }
        try migrationSlot.requireVacant(storeDescription)
        var found: StoredState?
        try engine.openExisting(confirmingWith: { found = try storedState() })
        do {
            guard let stored = found, let metadata = stored.metadata else {
                throw StorageError.incompatibleStore(path: storeDescription, reason: "it holds no CoreStore data")
            }
            guard metadata.schemaHash == schema.schemaHash else {
                engine.close()
                return metadata
            }
            latestCounters.forget()
            isOpenForReading = true
            lifecycle.install(KeyValueLayout(schema: schema, generation: stored.generation.number))
            return metadata
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
        if isOpenForReading { throw StorageError.openedForReading(storeDescription) }
        let generation = layout.generation.number
        let known = latestCounters.value(for: generation)
        var written: LatestCounters.Stored?
        let info = try engine.write { writer in
            let counters: CommitCounters
            var records: RecordCounts
            var totals: AttributeTotals
            if let known {
                (counters, records, totals) = known
            } else {
                // The first commit since the store opened: the counters, record counts and
                // totals are read, and the format marked current (a later commit finds
                // ``latestCounters`` set). A generation without record counts has its keys
                // counted once, here; one without totals has its records read for them once.
                counters = try Self.storedCounters(writer, generation: layout.generation, description: storeDescription)
                try Self.upgradeFormat(writer, generation: layout.generation)
                records = try RecordCounts.stored(writer, layout: layout) ?? RecordCounts.counted(writer, layout: layout)
                totals = try AttributeTotals.stored(writer, layout: layout) ?? AttributeTotals.counted(writer, layout: layout)
            }
            let commit = KeyValueCommit(writer: writer, layout: layout)
            let prepared = try changes.prepareCommit(schema: layout.schema, counters: counters) { ids in try commit.load(ids) }
            records.apply(try commit.write(prepared.changes), schema: layout.schema)
            totals.apply(prepared.changes)
            written = (prepared.counters, records, totals)
            if prepared.counters.nextKey != counters.nextKey {
                try writer.put(layout.nextKeyCounterKey, TupleEncoder.encodeInt(prepared.counters.nextKey))
            }
            // The sequence counter carries the record counts (``RecordCounts``) and the
            // attribute totals (``AttributeTotals``).
            try writer.put(layout.sequenceCounterKey, records.counterValue(sequence: prepared.counters.sequence, totals: totals.encoded()))
            if let metadata = prepared.metadata {
                try writer.put(layout.metadataKey("metadata"), Self.encode(metadata))
            }
            return prepared.info
        }
        if let written { latestCounters.remember(written, for: generation) }
        return info
    }

    /// Destroys the engine's data; the next ``open(schema:)`` starts a new store.
    public func erase() throws {
        if lifecycle.isOpen && isOpenForReading { throw StorageError.openedForReading(storeDescription) }
        latestCounters.forget()
        lifecycle.close()
        try engine.destroy()
    }

    /// Closes the engine; later calls throw `StorageError/notOpen(store:)`.
    public func close() {
        latestCounters.forget()
        isOpenForReading = false
        lifecycle.close()
        engine.close()
    }

    // MARK: - Metadata

    /// What ``storedState()`` finds.
    typealias StoredState = (generation: KeyValueGeneration, metadata: StoredMetadata?, isEmpty: Bool, hasOtherGenerations: Bool)

    /// What the engine holds, read in one snapshot: the generation the root pointer names, its
    /// metadata (`nil` when there is none), whether the engine holds no key at all (read only
    /// without metadata) and whether keys of other generations are left.
    func storedState() throws -> StoredState {
        try engine.read { reader in
            let generation = try KeyValueGeneration.current(reader, description: storeDescription)
            guard let metadata = try Self.storedMetadata(reader, generation: generation, description: storeDescription) else {
                let isEmpty = try !reader.containsKey(in: KeyRange(lower: [], upper: []))
                return (generation, nil, isEmpty, false)
            }
            let hasOtherGenerations = try generation.otherRanges.contains { try reader.containsKey(in: $0) }
            return (generation, metadata, false, hasOtherGenerations)
        }
    }

    /// Stores the format, `metadata` and `counters` of `generation`.
    static func putMetadata(_ writer: any KeyValueWriter, generation: KeyValueGeneration, metadata: StoredMetadata, counters: CommitCounters,
                            records: RecordCounts? = nil, totals: AttributeTotals? = nil) throws {
        try writer.put(generation.metadataKey("format"), TupleEncoder.encode([.int(KeyValueLayout.formatVersion)]))
        try writer.put(generation.metadataKey("metadata"), encode(metadata))
        try writer.put(generation.metadataKey(KeyValueGeneration.nextKeyCounter), TupleEncoder.encodeInt(counters.nextKey))
        // Without the counts (and totals) of the records the generation holds, the sequence
        // alone: the first commit counts them.
        let sequence = records.map { $0.counterValue(sequence: counters.sequence, totals: totals?.encoded() ?? []) }
        try writer.put(generation.metadataKey(KeyValueGeneration.sequenceCounter), sequence ?? TupleEncoder.encodeInt(Int64(counters.sequence)))
    }

    /// The stored metadata of `generation`, `nil` when it has none at all; throws when it is
    /// garbled or of a newer format.
    static func storedMetadata(_ reader: any KeyValueReader, generation: KeyValueGeneration, description: String) throws -> StoredMetadata? {
        let format = try reader.get(generation.metadataKey("format"))
        let blob = try reader.get(generation.metadataKey("metadata"))
        if format == nil && blob == nil { return nil }
        guard let format, let blob, let version = formatVersion(format), KeyValueLayout.readableFormatVersions.contains(version) else {
            throw StorageError.incompatibleStore(path: description, reason: "its metadata is missing, damaged or of an unknown format version")
        }
        do {
            _ = try storedCounters(reader, generation: generation, description: description)
            return try decode(blob)
        } catch {
            throw StorageError.incompatibleStore(path: description, reason: "its metadata is damaged (\(error))")
        }
    }

    /// The format version the `format` metadata value `bytes` holds; `nil` when it is damaged.
    static func formatVersion(_ bytes: [UInt8]) -> Int64? {
        guard let values = try? TupleDecoder.decode(bytes), values.count == 1, case .int(let version) = values[0] else { return nil }
        return version
    }

    /// Marks `generation` with the current format version when it has an earlier one: in the
    /// first commit after an open, before records of the current format go in.
    static func upgradeFormat(_ writer: any KeyValueWriter, generation: KeyValueGeneration) throws {
        let key = generation.metadataKey("format")
        guard let bytes = try writer.get(key), let version = formatVersion(bytes), version < KeyValueLayout.formatVersion else { return }
        try writer.put(key, TupleEncoder.encode([.int(KeyValueLayout.formatVersion)]))
    }

    /// The stored counters of `generation`. `description` is only evaluated for the error: it
    /// can cost a file-path conversion, and this runs in every write.
    static func storedCounters(_ reader: any KeyValueReader, generation: KeyValueGeneration, description: @autoclosure () -> String) throws -> CommitCounters {
        let nextKey = try counter(reader, generation, KeyValueGeneration.nextKeyCounter, description: description())
        guard let sequence = UInt64(exactly: try counter(reader, generation, KeyValueGeneration.sequenceCounter, description: description())) else {
            throw StorageError.incompatibleStore(path: description(), reason: "its 'sequence' counter is negative")
        }
        return CommitCounters(nextKey: nextKey, sequence: sequence)
    }

    /// The stored counter `name` of `generation`: the first value of its tuple (the `sequence`
    /// counter's may be followed by the record counts, see ``RecordCounts``).
    private static func counter(_ reader: any KeyValueReader, _ generation: KeyValueGeneration, _ name: String, description: @autoclosure () -> String) throws -> Int64 {
        // The first element is the counter; only the `sequence` counter's value goes on (the
        // record counts and attribute totals, read by their own types).
        var decoder = TupleDecoder(try reader.get(generation.metadataKey(name)) ?? [])
        guard !decoder.isAtEnd, case .int(let value)? = try? decoder.next(),
              decoder.isAtEnd || name == KeyValueGeneration.sequenceCounter else {
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
        try ByteReader.reading(bytes, what: "metadata") { try decode(&$0) }
    }

    private static func decode(_ r: inout ByteReader) throws -> StoredMetadata {
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
