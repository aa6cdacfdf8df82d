/// A set of record keys, for the commit and delete paths that track thousands of them at once.
///
/// `Set<Int64>` hashes every key with a seeded SipHash, about a hundred instructions, and a
/// bulk delete looks each of its keys up in two or three such sets. Record keys need no
/// protection against chosen collisions (a store hands them out), so this set spreads them with
/// one multiplication (Fibonacci hashing: consecutive keys land far apart) and probes linearly
/// in a table at most half full. A removal moves the rest of its short probe run back, so no
/// slot is ever left behind as a tombstone.
package struct RecordKeySet: Sendable {
    /// The marker of an empty slot. The key with this value is held by ``holdsMarkerKey``.
    private static let emptyMarker = Int64.min

    private var slots: [Int64] = []
    /// `64 - log2(slots.count)`: the hash keeps the top bits of the product.
    private var shift = 64
    /// Whether the key equal to ``emptyMarker`` is in the set.
    private var holdsMarkerKey = false

    /// The number of keys held.
    package private(set) var count = 0

    /// An empty set with room for `minimumCapacity` keys.
    package init(minimumCapacity: Int = 0) {
        if minimumCapacity > 0 { resize(toHold: minimumCapacity) }
    }

    /// A set of `keys`.
    package init<Keys: Sequence>(_ keys: Keys) where Keys.Element == Int64 {
        self.init(minimumCapacity: keys.underestimatedCount)
        for key in keys { insert(key) }
    }

    /// Whether no key is held.
    package var isEmpty: Bool { count == 0 }

    /// Whether `key` is held.
    package func contains(_ key: Int64) -> Bool {
        if key == Self.emptyMarker { return holdsMarkerKey }
        guard !slots.isEmpty else { return false }
        return slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var i = home(key)
            while slots[i] != Self.emptyMarker {
                if slots[i] == key { return true }
                i = (i + 1) & mask
            }
            return false
        }
    }

    /// Adds `key`; `false` if it was already held.
    @discardableResult
    package mutating func insert(_ key: Int64) -> Bool {
        if key == Self.emptyMarker {
            guard !holdsMarkerKey else { return false }
            holdsMarkerKey = true
            count += 1
            return true
        }
        if (count + 1) * 2 > slots.count { resize(toHold: count + 1) }
        let home = home(key)
        let inserted = slots.withUnsafeMutableBufferPointer { slots in
            let mask = slots.count - 1
            var i = home
            while slots[i] != Self.emptyMarker {
                if slots[i] == key { return false }
                i = (i + 1) & mask
            }
            slots[i] = key
            return true
        }
        if inserted { count += 1 }
        return inserted
    }

    /// Removes `key`; `false` if it was not held.
    @discardableResult
    package mutating func remove(_ key: Int64) -> Bool {
        if key == Self.emptyMarker {
            guard holdsMarkerKey else { return false }
            holdsMarkerKey = false
            count -= 1
            return true
        }
        guard !slots.isEmpty else { return false }
        let start = home(key)
        let shift = self.shift
        let removed = slots.withUnsafeMutableBufferPointer { slots in
            let mask = slots.count - 1
            var hole = start
            while slots[hole] != key {
                if slots[hole] == Self.emptyMarker { return false }
                hole = (hole + 1) & mask
            }
            // Backward shift: a later key of the run moves into the hole when the hole lies
            // between its home and where it sits.
            var i = hole
            while true {
                i = (i + 1) & mask
                let candidate = slots[i]
                if candidate == Self.emptyMarker { break }
                let candidateHome = Self.home(candidate, shift: shift)
                if (i - candidateHome) & mask >= (i - hole) & mask {
                    slots[hole] = candidate
                    hole = i
                }
            }
            slots[hole] = Self.emptyMarker
            return true
        }
        if removed { count -= 1 }
        return removed
    }

    /// Makes room for `total` keys without growing again.
    package mutating func reserveCapacity(_ total: Int) {
        if total * 2 > slots.count { resize(toHold: total) }
    }

    /// Every key held, in no particular order.
    package var keys: [Int64] {
        var keys = slots.filter { $0 != Self.emptyMarker }
        if holdsMarkerKey { keys.append(Self.emptyMarker) }
        return keys
    }

    @inline(__always)
    private func home(_ key: Int64) -> Int {
        Self.home(key, shift: shift)
    }

    @inline(__always)
    private static func home(_ key: Int64, shift: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift))
    }

    /// Moves every key into a table at most half full with `total` keys.
    private mutating func resize(toHold total: Int) {
        var capacity = 16
        while capacity < total * 2 { capacity *= 2 }
        guard capacity > slots.count else { return }
        let old = slots
        slots = Array(filledWith: Self.emptyMarker, count: capacity)
        shift = 64 - capacity.trailingZeroBitCount
        let mask = capacity - 1
        slots.withUnsafeMutableBufferPointer { slots in
            for key in old where key != Self.emptyMarker {
                var i = Self.home(key, shift: shift)
                while slots[i] != Self.emptyMarker { i = (i + 1) & mask }
                slots[i] = key
            }
        }
    }
}
