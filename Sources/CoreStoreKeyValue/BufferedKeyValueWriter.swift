/// A ``KeyValueWriter`` that reads its own writes, for engines whose native write batch cannot
/// (LevelDB's `WriteBatch`, RocksDB's): reads go to a snapshot of the committed data with an
/// in-memory overlay of the pending puts and deletes merged in, and the engine applies
/// ``operations`` atomically at the end.
///
/// ```swift
/// func write<T>(_ body: (any KeyValueWriter) throws -> T) throws -> T {
///     let snapshot = MySnapshotReader(db)                 // a consistent read view
///     let buffer = BufferedKeyValueWriter(base: snapshot)
///     let result = try body(buffer)                      // throws: nothing applied
///     try db.apply(buffer.operations)                    // one atomic native batch
///     return result
/// }
/// ```
///
/// The overlay is an append-only log of the writes, moved into a sorted map only when a read
/// needs it: a commit that writes without reading between its writes, such as a large insert,
/// hands its writes to the engine as they were made instead of keeping a sorted map up to date
/// on every put. An engine whose batch can be visited hands the writer a way to make one
/// (``init(base:batches:)``): the writes then go straight into its batches, which the engine
/// applies as they are (``writeBatches``), and no log copies them first.
public final class BufferedKeyValueWriter: KeyValueWriter {
    /// One pending change.
    public enum Operation: Sendable, Hashable {
        /// Store the value under the key.
        case put(key: [UInt8], value: [UInt8])
        /// Remove the key.
        case delete(key: [UInt8])
    }

    // A writer serves one write, on one thread, and no method re-enters another, so accesses
    // never overlap: the runtime exclusivity checks (one per put) are switched off.
    private let base: any KeyValueReader
    /// The writes since the last read, in order.
    @exclusivity(unchecked) private var log = WriteLog()
    /// The last operation per key of the writes before the last read: the value put, or `nil`
    /// for a delete (a tombstone that hides the snapshot's value).
    @exclusivity(unchecked) private var merged = SortedKeyMap<[UInt8]?>()
    /// Makes the engine's batches, when the writes go into them instead of ``log``.
    private let makeBatch: (() -> any KeyValueWriteBatch)?
    /// The engine's batches, in order: together, every write (see ``writeBatches``).
    @exclusivity(unchecked) private var batches: [any KeyValueWriteBatch] = []
    /// The last of ``batches`` while no read has visited it: it takes the next writes.
    @exclusivity(unchecked) private var openBatch: (any KeyValueWriteBatch)?

    /// The snapshot's answer: what the overlay adds are this write's own bytes, in memory.
    public var verifiesStoredBytes: Bool { base.verifiesStoredBytes }

    /// A writer over `base`, the snapshot of the committed data, keeping its writes in a log
    /// of its own (``forEachOperationInPlace(_:)`` lends them to the engine).
    public init(base: any KeyValueReader) {
        self.base = base
        self.makeBatch = nil
    }

    /// A writer over `base` that puts its writes straight into the engine's batches, made by
    /// `makeBatch` when the first write comes and after each read (see ``KeyValueWriteBatch``).
    public init(base: any KeyValueReader, batches makeBatch: @escaping () -> any KeyValueWriteBatch) {
        self.base = base
        self.makeBatch = makeBatch
    }

    /// The engine's batches (``init(base:batches:)``), to apply in this order, all or none:
    /// together they hold every write in the order it was made. Empty for a writer with a log
    /// of its own, and for one that has written nothing.
    public var writeBatches: [any KeyValueWriteBatch] { batches }

    /// The pending changes, for the engine to apply at once and in this order: a key may come
    /// more than once, and then its last operation is the one that counts (as in every native
    /// write batch: LevelDB's, RocksDB's, an append log replayed in order).
    public var operations: [Operation] {
        var result: [Operation] = []
        forEachOperation { key, value in result.append(value.map { .put(key: key, value: $0) } ?? .delete(key: key)) }
        return result
    }

    /// Whether any put or delete is pending.
    public var hasPendingOperations: Bool { !log.isEmpty || !merged.isEmpty || !batches.isEmpty }

    /// Visits the pending changes in the order to apply them (see ``operations``): the value
    /// put, or `nil` for a delete. First the writes before the last read, one per key in
    /// ascending key order; then the writes since, in the order they were made. Like
    /// ``operations`` without building an array of every change first. (A writer that fills
    /// the engine's batches visits every write in the order it was made.)
    public func forEachOperation(_ body: (_ key: [UInt8], _ value: [UInt8]?) throws -> Void) rethrows {
        if makeBatch != nil {
            for (key, value) in batchedWrites() { try body(key, value) }
            return
        }
        try merged.scan(from: [], to: [], reverse: false) { key, value in
            try body(key, value)
            return true
        }
        try log.forEach { key, value in try body(Array(key), value.map { Array($0) }) }
    }

    /// ``forEachOperation(_:)`` lending each key and value in place (valid only until `body`
    /// returns), for an engine that copies them into its native batch: the writes since the
    /// last read are kept in one buffer, not as arrays.
    public func forEachOperationInPlace(_ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer?) throws -> Void) rethrows {
        if makeBatch != nil {
            for (key, value) in batchedWrites() {
                try key.withUnsafeBytes { key in
                    guard let value else { return try body(key, nil) }
                    try value.withUnsafeBytes { try body(key, $0) }
                }
            }
            return
        }
        try merged.scan(from: [], to: [], reverse: false) { key, value in
            try key.withUnsafeBytes { key in
                guard let value else { return try body(key, nil) }
                try value.withUnsafeBytes { try body(key, $0) }
            }
            return true
        }
        try log.forEach(body)
    }

    /// Every write in the engine's batches, in order, copied (for the visits above, which the
    /// engine that applies its batches as they are does not need).
    private func batchedWrites() -> [(key: [UInt8], value: [UInt8]?)] {
        var writes: [(key: [UInt8], value: [UInt8]?)] = []
        for batch in batches {
            batch.forEach { key, value in writes.append((Array(key), value.map { Array($0) })) }
        }
        return writes
    }

    /// Moves the writes since the last read (the log, or the open batch) into the sorted map,
    /// later writes replacing earlier ones. A batch stays in ``batches``; the next write opens
    /// another.
    private func mergeLog() {
        if let batch = openBatch {
            batch.forEach { key, value in merged[Array(key)] = .some(value.map { Array($0) }) }
            openBatch = nil
            return
        }
        if log.isEmpty { return }
        log.forEach { key, value in merged[Array(key)] = .some(value.map { Array($0) }) }
        log.removeAll()
    }

    /// Adds a put of `value` under `key`, or a delete of `key` when `value` is `nil`, to the
    /// open batch (opened now when there is none), or to the log.
    @inline(__always)
    private func append(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer?) {
        guard let makeBatch else { return log.append(key: key, value: value) }
        let batch: any KeyValueWriteBatch
        if let open = openBatch {
            batch = open
        } else {
            batch = makeBatch()
            batches.append(batch)
            openBatch = batch
        }
        if let value { batch.put(key: key, value: value) } else { batch.delete(key: key) }
    }

    /// Stores `value` under `key` in the overlay.
    public func put(_ key: [UInt8], _ value: [UInt8]) throws {
        key.withUnsafeBytes { key in value.withUnsafeBytes { append(key: key, value: $0) } }
    }

    /// Stores the bytes of `value` under the bytes of `key` in the overlay (copied into its log
    /// or the engine's batch).
    public func put(keyBytes key: UnsafeRawBufferPointer, valueBytes value: UnsafeRawBufferPointer) throws {
        append(key: key, value: value)
    }

    /// Records the removal of `key` in the overlay.
    public func delete(_ key: [UInt8]) throws {
        key.withUnsafeBytes { append(key: $0, value: nil) }
    }

    /// The pending value of `key`, else the snapshot's.
    public func get(_ key: [UInt8]) throws -> [UInt8]? {
        mergeLog()
        switch merged[key] {
        case .some(let value): return value
        case .none: return try base.get(key)
        }
    }

    /// The pending keys in range with their values, ascending.
    private func pendingPairs(from lowerBound: [UInt8], to upperBound: [UInt8]) -> [(key: [UInt8], value: [UInt8]?)] {
        mergeLog()
        var pairs: [(key: [UInt8], value: [UInt8]?)] = []
        merged.scan(from: lowerBound, to: upperBound, reverse: false) { key, value in
            pairs.append((key, value))
            return true
        }
        return pairs
    }

    /// Merges the snapshot's pairs in range with the overlay's, the overlay winning on equal keys.
    public func scan(from lowerBound: [UInt8], to upperBound: [UInt8], reverse: Bool, _ visit: ([UInt8], [UInt8]) throws -> Bool) throws {
        let pending = pendingPairs(from: lowerBound, to: upperBound)
        var stopped = false
        if !reverse {
            var i = 0
            try base.scan(from: lowerBound, to: upperBound, reverse: false) { key, value in
                while i < pending.count, KeyOrder.precedes(pending[i].key, key) {
                    if let v = pending[i].value, try !visit(pending[i].key, v) { stopped = true; return false }
                    i += 1
                }
                if i < pending.count, pending[i].key == key {
                    let v = pending[i].value
                    i += 1
                    if let v, try !visit(key, v) { stopped = true; return false }
                    return true
                }
                if try !visit(key, value) { stopped = true; return false }
                return true
            }
            while !stopped, i < pending.count {
                if let v = pending[i].value, try !visit(pending[i].key, v) { return }
                i += 1
            }
        } else {
            var i = pending.count - 1
            try base.scan(from: lowerBound, to: upperBound, reverse: true) { key, value in
                while i >= 0, KeyOrder.precedes(key, pending[i].key) {
                    if let v = pending[i].value, try !visit(pending[i].key, v) { stopped = true; return false }
                    i -= 1
                }
                if i >= 0, pending[i].key == key {
                    let v = pending[i].value
                    i -= 1
                    if let v, try !visit(key, v) { stopped = true; return false }
                    return true
                }
                if try !visit(key, value) { stopped = true; return false }
                return true
            }
            while !stopped, i >= 0 {
                if let v = pending[i].value, try !visit(pending[i].key, v) { return }
                i -= 1
            }
        }
    }
}

