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
/// The overlay is a hash table (a put or `get` costs one hash of the key) plus a sorted view of
/// its keys that is brought up to date only when a scan needs it: a commit that writes without
/// scanning between its writes, such as a large insert, never sorts.
public final class BufferedKeyValueWriter: KeyValueWriter {
    /// One pending change.
    public enum Operation: Sendable, Hashable {
        /// Store the value under the key.
        case put(key: [UInt8], value: [UInt8])
        /// Remove the key.
        case delete(key: [UInt8])
    }

    private let base: any KeyValueReader
    /// The last operation per key: the value put, or `nil` for a delete (a tombstone that hides
    /// the snapshot's value).
    private var pending: [OverlayKey: [UInt8]?] = [:]
    /// Every key of ``pending``, in the order each was first written.
    private var written: [[UInt8]] = []
    /// The keys of ``written`` up to ``sortedCount``, sorted, for scans.
    private var sorted = SortedKeyMap<Bool>()
    /// How many keys of ``written`` are in ``sorted``.
    private var sortedCount = 0

    /// A writer over `base`, the snapshot of the committed data.
    public init(base: any KeyValueReader) {
        self.base = base
    }

    /// The pending changes, one per key, in the order the keys were first written, for the
    /// engine to apply at once.
    public var operations: [Operation] {
        var result: [Operation] = []
        forEachOperation { key, value in result.append(value.map { .put(key: key, value: $0) } ?? .delete(key: key)) }
        return result
    }

    /// Whether any put or delete is pending.
    public var hasPendingOperations: Bool { !written.isEmpty }

    /// Visits the pending changes, one per key, in the order the keys were first written: the
    /// value put, or `nil` for a delete. Like ``operations`` without building an array of every
    /// change first.
    public func forEachOperation(_ body: (_ key: [UInt8], _ value: [UInt8]?) throws -> Void) rethrows {
        for key in written {
            guard let value = pending[OverlayKey(key)] else { continue }
            try body(key, value)
        }
    }

    private func record(_ key: [UInt8], _ value: [UInt8]?) {
        if pending.updateValue(value, forKey: OverlayKey(key)) == nil { written.append(key) }
    }

    /// Stores `value` under `key` in the overlay.
    public func put(_ key: [UInt8], _ value: [UInt8]) throws { record(key, value) }

    /// Records the removal of `key` in the overlay.
    public func delete(_ key: [UInt8]) throws { record(key, nil) }

    /// The pending value of `key`, else the snapshot's.
    public func get(_ key: [UInt8]) throws -> [UInt8]? {
        switch pending[OverlayKey(key)] {
        case .some(let value): return value
        case .none: return try base.get(key)
        }
    }

    /// The pending keys in range with their values, ascending; brings the sorted view up to date.
    private func pendingPairs(from lowerBound: [UInt8], to upperBound: [UInt8]) -> [(key: [UInt8], value: [UInt8]?)] {
        while sortedCount < written.count {
            sorted[written[sortedCount]] = true
            sortedCount += 1
        }
        var pairs: [(key: [UInt8], value: [UInt8]?)] = []
        sorted.scan(from: lowerBound, to: upperBound, reverse: false) { key, _ in
            if let value = pending[OverlayKey(key)] { pairs.append((key, value)) }
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

/// A key of the overlay, hashed as one block of bytes (an array of bytes hashes byte by byte).
private struct OverlayKey: Hashable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    static func == (lhs: OverlayKey, rhs: OverlayKey) -> Bool {
        KeyOrder.compare(lhs.bytes, rhs.bytes) == 0
    }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
