import CoreStoreStorage
import HashTreeCollections

/// The secondary indexes of one ``InMemoryState``: for every index the schema declares, which
/// records hold each tuple of values, so that an equality or `IN` lookup reads a few records
/// instead of the whole table.
///
/// Indexes come from the schema: each attribute marked `isIndexed`, each compound index and each
/// unique constraint, declared on a record's entity or any of its ancestors (one index per
/// distinct list of attributes). Entries are kept per concrete entity, so a lookup never crosses
/// into a sibling entity's records.
///
/// An entry's key is the ``KeyTuple`` of ``ValueKey/equalityKey(_:)``s of the record's values:
/// records that an equality comparison cannot tell apart share it. A record with a value that has
/// no such key (a decimal, NaN) is kept in the index's ``IndexEntries/unkeyed`` set, which every
/// lookup returns, so it is always checked by the full predicate.
///
/// Like the tables, every map is a persistent hash tree: copying a state copies nothing, and a
/// commit copies only the paths it changes.
///
/// Besides the declared indexes, ``keyOrder`` keeps every record in key order (see
/// ``KeyOrderedChunks``): the reader scans it instead of the tables.
///
/// Invariant (kept by ``InMemoryState/apply(_:)``): every stored record is in exactly one entry
/// of each index of its entity, the one its current values give, and in ``keyOrder`` in its
/// current version. Callers ``remove(_:)`` a record's old version before they ``add(_:)`` its new
/// one.
struct InMemoryIndexes: Sendable {
    /// One index as it applies to one concrete entity.
    struct Definition: Sendable {
        /// The indexed attributes, in the declared order.
        let attributes: [String]
        /// Their ordinals in the concrete entity.
        let ordinals: [Int]
    }

    /// The indexes of each concrete entity (fixed by the schema).
    let definitions: [String: [Definition]]
    /// The entries of each index, parallel to ``definitions``.
    private(set) var entries: [String: [IndexEntries]]
    /// Every record of every concrete entity, in key order: what a scan reads.
    private(set) var keyOrder = KeyOrderedChunks()

    /// Empty indexes for every index `schema` declares.
    init(schema: StoreSchema) {
        var definitions: [String: [Definition]] = [:]
        for entity in schema.entities {
            var lists: [[String]] = []
            func declare(_ attributes: [String]) {
                guard !attributes.isEmpty, !lists.contains(attributes),
                      attributes.allSatisfy({ schema.attributeOrdinal($0, in: entity.name) != nil }) else { return }
                lists.append(attributes)
            }
            var current: String? = entity.name
            while let name = current, let description = schema.entity(named: name) {
                for attribute in description.attributes where attribute.isIndexed { declare([attribute.name]) }
                for attributes in description.indexes { declare(attributes) }
                current = description.parentName
            }
            for (_, attributes) in schema.uniqueConstraints(applyingTo: entity.name) { declare(attributes) }
            guard !lists.isEmpty else { continue }
            definitions[entity.name] = lists.map { attributes in
                Definition(attributes: attributes, ordinals: attributes.compactMap { schema.attributeOrdinal($0, in: entity.name) })
            }
        }
        self.definitions = definitions
        self.entries = definitions.mapValues { Array(repeating: IndexEntries(), count: $0.count) }
    }

    /// Adds `record` (not already in the indexes) to every index of its entity.
    mutating func add(_ record: Record) {
        keyOrder.add(record)
        guard let indexes = definitions[record.id.entity] else { return }
        let key = record.id.key
        Self.modify(&entries[record.id.entity]) { entries in
            for (i, index) in indexes.enumerated() {
                entries[i].insert(key, Self.tuple(index, of: record))
            }
        }
    }

    /// Removes `record`, as it is stored now, from every index of its entity.
    mutating func remove(_ record: Record) {
        keyOrder.remove(record)
        guard let indexes = definitions[record.id.entity] else { return }
        let key = record.id.key
        Self.modify(&entries[record.id.entity]) { entries in
            for (i, index) in indexes.enumerated() {
                entries[i].remove(key, Self.tuple(index, of: record))
            }
        }
    }

    /// Replaces `old` with `new`, a new version of the same record: only the indexes whose
    /// attributes changed are touched (an update usually changes a field or two).
    mutating func replace(_ old: Record, with new: Record) {
        guard old.id == new.id else {
            remove(old)
            add(new)
            return
        }
        keyOrder.add(new)
        guard let indexes = definitions[new.id.entity] else { return }
        let key = new.id.key
        guard indexes.contains(where: { index in index.ordinals.contains { old.attributes[$0] != new.attributes[$0] } }) else { return }
        Self.modify(&entries[new.id.entity]) { entries in
            for (i, index) in indexes.enumerated() where index.ordinals.contains(where: { old.attributes[$0] != new.attributes[$0] }) {
                entries[i].remove(key, Self.tuple(index, of: old))
                entries[i].insert(key, Self.tuple(index, of: new))
            }
        }
    }

    /// Calls `body` on the entries of one entity in place (one dictionary lookup for all its
    /// indexes; the array is moved out and back, so it stays uniquely referenced).
    private static func modify(_ entries: inout [IndexEntries]?, _ body: (inout [IndexEntries]) -> Void) {
        guard var list = entries else { return }
        entries = nil
        body(&list)
        entries = list
    }

    /// The key tuple of `record` in `index`; `nil` when one of its values has no equality key.
    private static func tuple(_ index: Definition, of record: Record) -> KeyTuple? {
        guard let first = ValueKey.equalityKey(record.attributes[index.ordinals[0]]) else { return nil }
        var rest: [ValueKey] = []
        if index.ordinals.count > 1 {
            rest.reserveCapacity(index.ordinals.count - 1)
            for ordinal in index.ordinals.dropFirst() {
                guard let key = ValueKey.equalityKey(record.attributes[ordinal]) else { return nil }
                rest.append(key)
            }
        }
        return KeyTuple(first: first, rest: rest)
    }
}

/// The records of one concrete entity an index lookup returns (see
/// ``InMemoryIndexes/candidates(_:entity:)``).
struct IndexCandidates {
    /// The keys of the records whose key tuple satisfies the bindings, as disjoint buckets.
    var keyed: [IndexBucket] = []
    /// The keys of the records whose tuple has a value without an equality key: they may or may
    /// not satisfy the bindings.
    var unkeyed: TreeSet<Int64> = []
    /// Whether every ``keyed`` record satisfies the whole predicate: true when the predicate is
    /// exactly its bindings (``EqualityBindings/isExact``) and the index covers every bound
    /// attribute.
    var keyedSatisfyPredicate = false
    /// How many records the lookup returns.
    var count = 0
}

extension InMemoryIndexes {
    /// Beyond this many key tuples (the product of the bound attributes' key counts), an index
    /// is not used.
    static let maximumLookupTuples = 4_096

    /// The records of the concrete `entity` that may satisfy `bindings`, from the index that
    /// returns the fewest; `nil` when no index of the entity has all its attributes bound.
    ///
    /// Every record whose values satisfy all the bindings is among the candidates; the
    /// ``IndexCandidates/unkeyed`` ones may not satisfy them, so the caller evaluates the full
    /// predicate on those, and on the keyed ones too unless they are known to satisfy it.
    func candidates(_ bindings: EqualityBindings, entity: String) -> IndexCandidates? {
        guard let indexes = definitions[entity], let entityEntries = entries[entity] else { return nil }
        var best: IndexCandidates?
        for (i, index) in indexes.enumerated() {
            guard let tuples = bindings.tuples(index.attributes, limit: Self.maximumLookupTuples) else { continue }
            let indexEntries = entityEntries[i]
            var candidates = IndexCandidates(unkeyed: indexEntries.unkeyed, count: indexEntries.unkeyed.count)
            for tuple in tuples {
                guard let bucket = indexEntries.bucket(tuple) else { continue }
                candidates.keyed.append(bucket)
                candidates.count += bucket.count
            }
            candidates.keyedSatisfyPredicate = bindings.isExact && bindings.keys.keys.allSatisfy(index.attributes.contains)
            // Fewest candidates first; on a tie, the lookup that spares evaluating the predicate.
            if best.map({ (candidates.count, candidates.keyedSatisfyPredicate ? 0 : 1) < ($0.count, $0.keyedSatisfyPredicate ? 0 : 1) }) ?? true {
                best = candidates
            }
        }
        return best
    }
}
