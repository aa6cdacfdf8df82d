import CoreStoreStorage

/// One migration of a ``KeyValueStorage`` in progress (see ``MigratableStorage``): the source
/// version is generation g of the keys, the destination is written beside it as generation
/// g + 1 (see ``KeyValueGeneration``), and ``finish(metadata:counters:)`` makes it current with
/// one engine write that stores its metadata and moves the root pointer.
///
/// A crash at any moment leaves either the source (pointer at g) or the destination (pointer
/// at g + 1) as the store's data and the other generation as garbage, which the next
/// ``KeyValueStorage/open(schema:)`` deletes.
///
/// Every engine access is its own transaction: no read snapshot stays open across a
/// ``writeDestination(_:)`` (an LMDB write that grows the map waits until no read runs). Used
/// by one thread at a time, as the contract says.
final class KeyValueMigration<Engine: OrderedKeyValueStore>: StorageMigration {
    /// The metadata stored with the source version.
    let sourceMetadata: StoredMetadata
    /// The counters stored with the source version.
    let sourceCounters: CommitCounters

    private let engine: Engine
    /// The source version's layout, at the current generation.
    private let source: KeyValueLayout
    /// The destination version's layout, at the next generation.
    private let destination: KeyValueLayout
    /// The storage's slot, vacated when the migration ends.
    private let slot: KeyValueMigrationSlot
    /// Whether ``finish(metadata:counters:)`` moved the pointer or ``abandon()`` ran.
    private var isEnded = false
    /// The record counts and attribute totals of what was written to the destination, stored
    /// with it by ``finish(metadata:counters:)``: its first commit then reads them instead of
    /// reading every record again.
    private var destinationCounts = RecordCounts()
    private var destinationTotals: AttributeTotals

    /// A migration over the open `engine` from `source` to `destination`, whose generation is the
    /// one after `source`'s and holds no key yet.
    init(engine: Engine, source: KeyValueLayout, destination: KeyValueLayout, metadata: StoredMetadata, counters: CommitCounters, slot: KeyValueMigrationSlot) {
        self.engine = engine
        self.source = source
        self.destination = destination
        self.sourceMetadata = metadata
        self.sourceCounters = counters
        self.slot = slot
        destinationTotals = AttributeTotals(schema: destination.schema)
    }

    /// Runs `body` on one snapshot of the source generation, read under the source schema.
    func readSource<T>(_ body: (any StorageReader) throws -> T) throws -> T {
        try requireRunning()
        return try engine.read { try body(KeyValueStorageReader(snapshot: $0, layout: source)) }
    }

    /// Runs `body` on a snapshot of the destination generation written so far.
    func readDestination<T>(_ body: (any StorageReader) throws -> T) throws -> T {
        try requireRunning()
        return try engine.read { try body(KeyValueStorageReader(snapshot: $0, layout: destination)) }
    }

    /// Writes `changes` to the destination generation in one engine write, with their index
    /// entries; a unique constraint of the destination schema they break throws
    /// ``StorageError/uniqueConstraintViolation(entity:attributes:values:)`` and writes nothing.
    func writeDestination(_ changes: MergedChanges) throws {
        try requireRunning()
        if changes.isEmpty { return }
        var deltas = RecordCountDeltas()
        try engine.write { writer in
            deltas = try KeyValueCommit(writer: writer, layout: destination).write(changes)
        }
        // Counted once the write stands (a failed write leaves nothing behind).
        destinationCounts.apply(deltas, schema: destination.schema)
        destinationTotals.apply(changes)
    }

    /// Stores `metadata` and `counters` with the destination generation and points the root
    /// pointer at it, in one engine write: from then on the store opens as the destination.
    /// The source generation is deleted afterwards, in writes of bounded size; when that stops
    /// early, the next open finishes it. Leaves the engine closed.
    func finish(metadata: StoredMetadata, counters: CommitCounters) throws {
        try requireRunning()
        try engine.write { writer in
            try KeyValueStorage<Engine>.putMetadata(writer, generation: destination.generation, metadata: metadata, counters: counters,
                                                    records: destinationCounts, totals: destinationTotals)
            try writer.put(KeyValueGeneration.pointerKey, destination.generation.pointerValue)
        }
        // The destination is the store's data now: nothing may undo it (an `abandon` after a
        // failed clean-up, for one), and the clean-up is best effort.
        isEnded = true
        try? engine.deleteKeys(in: source.generation.ranges)
        end()
    }

    /// Deletes what was written to the destination generation (when the pointer still names
    /// the source: a `finish` whose write was reported failed may have committed) and closes the
    /// engine. Never throws: what is left is garbage the next open deletes.
    func abandon() {
        guard !isEnded else { return }
        isEnded = true
        let current = try? engine.read { try KeyValueGeneration.current($0, description: engine.storeDescription) }
        if current == source.generation {
            try? engine.deleteKeys(in: destination.generation.ranges)
        }
        end()
    }

    /// Closes the engine and frees the storage for `open` and the next migration.
    private func end() {
        engine.close()
        slot.vacate(self)
    }

    private func requireRunning() throws {
        if isEnded { throw StorageError.invalidRequest("the migration of \(engine.storeDescription) has ended") }
    }
}
