import HashTreeCollections

/// The keys of the records that share one index entry: a single key held inline (the common case
/// of an index on a nearly unique attribute, which then costs no allocation per record), or a
/// persistent set of two or more.
///
/// The representation is canonical: exactly one key is always ``one(_:)``, so two buckets holding
/// the same keys are equal.
enum IndexBucket: Sendable, Equatable, Sequence {
    /// Exactly one key.
    case one(Int64)
    /// Two or more keys.
    case many(TreeSet<Int64>)

    /// How many keys the bucket holds.
    var count: Int {
        switch self {
        case .one: return 1
        case .many(let keys): return keys.count
        }
    }

    /// Adds `key`.
    mutating func insert(_ key: Int64) {
        switch self {
        case .one(let existing):
            if existing != key { self = .many([existing, key]) }
        case .many(var keys):
            // Release this enum's reference first, so that the set is mutated in place.
            self = .one(key)
            keys.insert(key)
            self = .many(keys)
        }
    }

    /// Removes `key`; returns `false` when that leaves the bucket empty (the caller drops it).
    mutating func remove(_ key: Int64) -> Bool {
        switch self {
        case .one(let existing):
            return existing != key
        case .many(var keys):
            self = .one(key)
            keys.remove(key)
            if keys.count == 1, let last = keys.first {
                self = .one(last)
            } else {
                self = .many(keys)
            }
            return true
        }
    }

    /// The keys, in no particular order.
    func makeIterator() -> Iterator {
        switch self {
        case .one(let key): return Iterator(single: key, keys: nil)
        case .many(let keys): return Iterator(single: nil, keys: keys.makeIterator())
        }
    }

    /// Iterates a bucket's keys.
    struct Iterator: IteratorProtocol {
        /// The key of a ``IndexBucket/one(_:)`` bucket, until it is returned.
        fileprivate var single: Int64?
        /// The iterator of a ``IndexBucket/many(_:)`` bucket.
        fileprivate var keys: TreeSet<Int64>.Iterator?

        /// The next key.
        mutating func next() -> Int64? {
            if let key = single {
                single = nil
                return key
            }
            return keys?.next()
        }
    }
}
