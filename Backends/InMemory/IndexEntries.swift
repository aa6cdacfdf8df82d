import HashTreeCollections

/// The entries of one index of one concrete entity: for each key tuple, the keys of the records
/// that have it (see ``InMemoryIndexes``).
///
/// A tuple of one integer key held by exactly one record — every entry of an index on a unique
/// integer attribute — is kept in ``singleIntegers``, a map of plain integers: its hash-tree
/// nodes are copied and freed as raw memory when a commit copies a path, instead of element by
/// element. Every other tuple is in ``keyed``. The split is canonical: a one-integer tuple is in
/// ``singleIntegers`` exactly when one record holds it, so two entries holding the same records
/// are equal.
struct IndexEntries: Sendable, Equatable {
    /// The record holding each one-integer tuple that exactly one record holds.
    private(set) var singleIntegers: TreeDictionary<Int64, Int64> = [:]
    /// The keys of the records holding each other tuple.
    private(set) var keyed: TreeDictionary<KeyTuple, IndexBucket> = [:]
    /// The keys of the records whose tuple has a value without an equality key.
    private(set) var unkeyed: TreeSet<Int64> = []

    /// The records holding `tuple`.
    func bucket(_ tuple: KeyTuple) -> IndexBucket? {
        if let integer = Self.singleInteger(tuple), let key = singleIntegers[integer] { return .one(key) }
        return keyed[tuple]
    }

    /// Records that the record `key` holds `tuple` (`nil`: a tuple without equality keys).
    mutating func insert(_ key: Int64, _ tuple: KeyTuple?) {
        guard let tuple else {
            unkeyed.insert(key)
            return
        }
        if let integer = Self.singleInteger(tuple) {
            // One walk through the plain map: take the tuple when nobody holds it, or hand over
            // the record that held it alone.
            let sharedAlready = !keyed.isEmpty && keyed[tuple] != nil
            var placed = false
            var displaced: Int64?
            singleIntegers.updateValue(forKey: integer) { holder in
                if let other = holder {
                    if other == key { placed = true } else { displaced = other; holder = nil }
                } else if !sharedAlready {
                    holder = key
                    placed = true
                }
            }
            if placed { return }
            if let displaced { keyed[tuple] = .one(displaced) }
        }
        keyed.updateValue(forKey: tuple) { bucket in
            if bucket == nil { bucket = .one(key) } else { bucket?.insert(key) }
        }
    }

    /// Records that the record `key` no longer holds `tuple` (`nil`: a tuple without equality keys).
    mutating func remove(_ key: Int64, _ tuple: KeyTuple?) {
        guard let tuple else {
            unkeyed.remove(key)
            return
        }
        let integer = Self.singleInteger(tuple)
        if let integer {
            var removed = false
            singleIntegers.updateValue(forKey: integer) { holder in
                if holder == key {
                    holder = nil
                    removed = true
                }
            }
            if removed { return }
        }
        var remaining: Int64?
        keyed.updateValue(forKey: tuple) { bucket in
            if bucket?.remove(key) == false { bucket = nil }
            if case .one(let last)? = bucket { remaining = last }
        }
        // A one-integer tuple left with one record moves back to the plain map.
        if let last = remaining, let integer {
            keyed.removeValue(forKey: tuple)
            singleIntegers[integer] = last
        }
    }

    /// The integer of a tuple of one integer key.
    private static func singleInteger(_ tuple: KeyTuple) -> Int64? {
        guard tuple.rest.isEmpty, case .integer(let integer) = tuple.first else { return nil }
        return integer
    }
}
