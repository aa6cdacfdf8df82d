import CoreStoreStorage

/// How many records each entity hierarchy holds, stored after the commit sequence number in the
/// value of a generation's `sequence` counter, which every commit writes: a commit that inserts
/// or deletes records keeps the counts in the same engine write at no extra key, and a count of
/// every record of a hierarchy is then one read, not a scan of its keys.
///
/// The counter's value is the tuple `(sequence, k, root₁, count₁, …, rootₖ, countₖ)`, roots in
/// ascending order, counts positive, followed by the attribute totals (``AttributeTotals``,
/// format 4). Records are keyed by their hierarchy's root entity
/// (``KeyValueLayout/recordPrefix(ofHierarchyOf:)``), so the counts are per root: they answer
/// exactly the counts a key scan of one hierarchy answered. A counter holding the sequence
/// alone has no counts (a store written before format version 3, or a new store before its
/// first commit): reads then scan the keys, and the next commit counts them. A migration counts
/// what it writes and stores the counts with its new generation.
struct RecordCounts: Equatable, Sendable {
    /// One hierarchy's count.
    struct Entry: Equatable, Sendable {
        var root: String
        var count: Int64
    }

    /// The hierarchies that hold records, by root name in ascending order (a schema has few:
    /// a short array costs less to look up, change and encode in every commit than a dictionary).
    private(set) var entries: [Entry] = []

    /// The counts by root name.
    var byRoot: [String: Int64] {
        Dictionary(uniqueKeysWithValues: entries.map { ($0.root, $0.count) })
    }

    /// The records under `root`'s key range.
    func count(ofHierarchyOf root: String) -> Int64 {
        entries.first { $0.root == root }?.count ?? 0
    }

    /// Adds each delta (inserted minus deleted records) to its root's count.
    mutating func apply(_ deltas: RecordCountDeltas, schema: StoreSchema) {
        deltas.forEach { entity, delta in
            if delta != 0 { add(Int64(delta), root: schema.rootEntity(of: entity)) }
        }
    }

    /// Adds `delta` to `root`'s count; a count that reaches zero is dropped.
    private mutating func add(_ delta: Int64, root: String) {
        // A root already counted (nearly every commit) is found by equality alone: ordering two
        // strings costs far more than comparing them for equality.
        if let i = entries.firstIndex(where: { $0.root == root }) {
            entries[i].count += delta
            if entries[i].count == 0 { entries.remove(at: i) }
            return
        }
        guard let i = entries.firstIndex(where: { $0.root >= root }), entries[i].root == root else {
            let at = entries.firstIndex { $0.root > root } ?? entries.endIndex
            entries.insert(Entry(root: root, count: delta), at: at)
            return
        }
        entries[i].count += delta
        if entries[i].count == 0 { entries.remove(at: i) }
    }

    // MARK: Stored form

    /// The value of the `sequence` counter: `sequence`, then these counts, then `totals` (the
    /// stored form of the ``AttributeTotals``, which is not a tuple: it follows the tuple's last
    /// element as it is).
    func counterValue(sequence: UInt64, totals: [UInt8] = []) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(18 + entries.count * 24 + totals.count)
        TupleEncoder.encodeInt(Int64(sequence), into: &bytes)
        TupleEncoder.encodeInt(Int64(entries.count), into: &bytes)
        for entry in entries {
            TupleEncoder.encodeString(entry.root, into: &bytes)
            TupleEncoder.encodeInt(entry.count, into: &bytes)
        }
        bytes.append(contentsOf: totals)
        return bytes
    }

    /// The counts `reader` holds for `layout`'s generation; `nil` when its counter holds none.
    /// Throws when they are damaged.
    static func stored(_ reader: any KeyValueReader, layout: KeyValueLayout) throws -> RecordCounts? {
        guard let bytes = try reader.get(layout.sequenceCounterKey) else { return nil }
        return try decode(counterValue: bytes)
    }

    /// The counts in a `sequence` counter's value; `nil` when it holds the sequence alone.
    /// Throws when what follows the sequence is not a count of entries, each a name after the
    /// previous one and a positive count.
    static func decode(counterValue bytes: [UInt8]) throws -> RecordCounts? {
        try parts(ofCounterValue: bytes).counts
    }

    /// A `sequence` counter's value taken apart: the counts (`nil` when it holds the sequence
    /// alone) and the bytes after them (the attribute totals; empty when it holds none).
    static func parts(ofCounterValue bytes: [UInt8]) throws -> (counts: RecordCounts?, rest: ArraySlice<UInt8>) {
        var decoder = TupleDecoder(bytes)
        func next() throws -> Value {
            do { return try decoder.next() } catch {
                throw KeyValueFormatError.damaged("record counts", "\(error)")
            }
        }
        _ = try next()
        if decoder.isAtEnd { return (nil, []) }
        guard case .int(let k) = try next(), k >= 0 else {
            throw KeyValueFormatError.damaged("record counts", "what follows the sequence is not a count of entries")
        }
        var counts = RecordCounts()
        for i in 0..<k {
            guard !decoder.isAtEnd, case .string(let root) = try next(),
                  !decoder.isAtEnd, case .int(let count) = try next(), count > 0,
                  counts.entries.last.map({ $0.root < root }) ?? true else {
                throw KeyValueFormatError.damaged("record counts", "entry \(i) is not a name after the previous one and a positive count")
            }
            counts.entries.append(Entry(root: root, count: count))
        }
        return (counts, bytes[decoder.offset...])
    }

    /// The counts of every hierarchy of `layout`'s schema, from the keys `reader` holds.
    static func counted(_ reader: any KeyValueReader, layout: KeyValueLayout) throws -> RecordCounts {
        var counts = RecordCounts()
        for description in layout.schema.entities where description.parentName == nil {
            let prefix = layout.recordPrefix(ofHierarchyOf: description.name)
            var n: Int64 = 0
            try reader.scanKeys(from: prefix, to: TupleEncoder.elementsEnd(prefix)) { _ in
                n += 1
                return true
            }
            if n > 0 { counts.add(n, root: description.name) }
        }
        return counts
    }
}
