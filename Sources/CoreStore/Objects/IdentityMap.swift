import CoreStoreStorage

/// A context's objects by identifier: at most one object per stored record.
///
/// An open-addressing table (linear probing, at most half full) keyed by the store and the
/// record key: a lookup is a few instructions instead of a `Hasher` run, which mattered at one
/// or two lookups per fetched row. It holds its objects
/// strongly; ``removeUnreferenced(keepingRoomFor:)`` drops those nobody else holds. Beside the
/// table it keeps each store's keys as a ``KnownRecordKeys``, which a fetch hands to its
/// backend as a snapshot (``knownKeys(of:)``) so that held records are not decoded again.
struct IdentityMap {
    private struct Slot {
        var storeID: UInt64 = 0
        var key: Int64 = 0
        var object: CoreStoreObject?
    }

    private var slots: [Slot]
    private var mask: Int
    /// The number of objects held.
    private(set) var count = 0
    /// The keys held, per store (a context reads one or a few stores: searched in order).
    private var known: [(storeID: UInt64, keys: KnownRecordKeys)] = []

    /// An empty map. Its table is allocated by the first insert, so that a context or a
    /// transaction that never holds an object costs no allocation.
    init() {
        slots = []
        mask = 0
    }

    /// An empty map with room for `minimumCapacity` objects.
    init(minimumCapacity: Int) {
        var capacity = 16
        while capacity < minimumCapacity * 2 { capacity *= 2 }
        slots = Array(repeating: Slot(), count: capacity)
        mask = capacity - 1
    }

    /// A record's home slot. Stores hand out keys counting up, and fetches return records
    /// mostly in key order: each block of 32 consecutive keys lives in 32 consecutive slots,
    /// so a fetch walks the table in order instead of missing the cache on every row, while
    /// the blocks themselves are spread by a multiplicative hash, which keeps runs short (a
    /// removal and a miss scan one run).
    @inline(__always)
    private func home(_ storeID: UInt64, _ key: Int64) -> Int {
        Self.home(storeID, key, mask: mask)
    }

    /// ``home(_:_:)`` in a table of `mask + 1` slots (for code that holds the slots' buffer).
    @inline(__always)
    private static func home(_ storeID: UInt64, _ key: Int64, mask: Int) -> Int {
        let k = UInt64(bitPattern: key)
        let block = ((k >> 5) &+ storeID &* 0xC2B2_AE3D_27D4_EB4F) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: (block >> 32) << 5 | (k & 31)) & mask
    }

    /// The keys of store `storeID` held now, as a snapshot for a reader on another thread;
    /// `nil` when the map holds none of the store's objects.
    func knownKeys(of storeID: UInt64) -> KnownRecordKeys? {
        known.first { $0.storeID == storeID }?.keys
    }

    /// Adds or removes `key` in store `storeID`'s known keys.
    private mutating func noteKnown(_ key: Int64, of storeID: UInt64, isHeld: Bool) {
        var i = 0
        while i < known.count && known[i].storeID != storeID { i += 1 }
        if i == known.count {
            guard isHeld else { return }
            known.append((storeID, KnownRecordKeys()))
        }
        if isHeld { known[i].keys.insert(key) } else { known[i].keys.remove(key) }
    }

    /// The slot holding `id`, or the empty slot where it would go.
    @inline(__always)
    private func index(of id: ObjectID) -> Int {
        index(storeID: id.storeID, key: id.recordID.key)
    }

    /// The slot holding record `key` of store `storeID`, or the empty slot where it would go.
    @inline(__always)
    private func index(storeID: UInt64, key: Int64) -> Int {
        var i = home(storeID, key)
        return slots.withUnsafeBufferPointer { slots in
            while slots[i].object != nil {
                if slots[i].key == key && slots[i].storeID == storeID { return i }
                i = (i + 1) & mask
            }
            return i
        }
    }

    subscript(id: ObjectID) -> CoreStoreObject? {
        get { count == 0 ? nil : slots[index(of: id)].object }
        set {
            if let newValue { insert(newValue, as: id) } else { remove(id) }
        }
    }

    /// The object of record `key` of store `storeID`: a lookup by the two numbers alone, for
    /// callers that have no ``ObjectID`` at hand (making one copies the entity name).
    subscript(storeID storeID: UInt64, key key: Int64) -> CoreStoreObject? {
        count == 0 ? nil : slots[index(storeID: storeID, key: key)].object
    }

    private mutating func insert(_ object: CoreStoreObject, as id: ObjectID) {
        insert(object, storeID: id.storeID, key: id.recordID.key)
    }

    /// Holds `object` as record `key` of store `storeID` (replacing any object held for it).
    mutating func insert(_ object: CoreStoreObject, storeID: UInt64, key: Int64) {
        reserveCapacity(count + 1)
        let i = index(storeID: storeID, key: key)
        // One write of the whole slot through the buffer: a single uniqueness check, instead
        // of one per field written.
        let isNew = slots.withUnsafeMutableBufferPointer { slots in
            let isNew = slots[i].object == nil
            slots[i] = Slot(storeID: storeID, key: key, object: object)
            return isNew
        }
        if isNew {
            count += 1
            noteKnown(key, of: storeID, isHeld: true)
        }
    }

    private mutating func remove(_ id: ObjectID) {
        guard count > 0 else { return }
        let found = index(of: id)
        guard slots[found].object != nil else { return }
        count -= 1
        noteKnown(id.recordID.key, of: id.storeID, isHeld: false)
        let mask = self.mask
        // Through the buffer: one uniqueness check for the whole shift, not one per slot.
        slots.withUnsafeMutableBufferPointer { slots in
            var hole = found
            slots[hole].object = nil
            // Backward shift: move later members of the run into the hole when their home allows.
            var i = (hole + 1) & mask
            while slots[i].object != nil {
                let h = Self.home(slots[i].storeID, slots[i].key, mask: mask)
                if (hole - h) & mask < (i - h) & mask {
                    slots.swapAt(hole, i)
                    hole = i
                }
                i = (i + 1) & mask
            }
        }
    }

    /// Makes room for `total` objects without growing again.
    mutating func reserveCapacity(_ total: Int) {
        guard total * 2 > slots.count else { return }
        rebuild(capacityFor: total)
    }

    /// Whether the map holds no object.
    var isEmpty: Bool { count == 0 }

    /// Every object held.
    var objects: [CoreStoreObject] {
        slots.compactMap(\.object)
    }

    /// The longest stretch of occupied slots: what a miss or a removal may have to scan.
    var longestRun: Int {
        var longest = 0, current = 0
        for slot in slots + slots {
            current = slot.object == nil ? 0 : current + 1
            longest = max(longest, current)
        }
        return min(longest, slots.count)
    }

    /// Drops every object.
    mutating func removeAll() {
        self = IdentityMap()
    }

    /// Drops the objects only this map holds, and makes room for `room` more.
    mutating func removeUnreferenced(keepingRoomFor room: Int) {
        let before = count
        for i in slots.indices where slots[i].object != nil {
            if isKnownUniquelyReferenced(&slots[i].object) {
                slots[i].object = nil
                count -= 1
                noteKnown(slots[i].key, of: slots[i].storeID, isHeld: false)
            }
        }
        // Emptied slots break the probe runs: the survivors are placed anew. When every object
        // is still held (a fetch's own objects, swept while the caller holds them), the table
        // stays as it is.
        if count == before && (count + room) * 2 <= slots.count { return }
        rebuild(capacityFor: count + room)
    }

    /// Moves every object into a table sized for `total` (no reference is copied).
    private mutating func rebuild(capacityFor total: Int) {
        var rebuilt = IdentityMap(minimumCapacity: max(total, count))
        for index in slots.indices {
            guard let object = slots[index].object.take() else { continue }
            let storeID = slots[index].storeID, key = slots[index].key
            var i = rebuilt.home(storeID, key)
            while rebuilt.slots[i].object != nil { i = (i + 1) & rebuilt.mask }
            rebuilt.slots[i] = Slot(storeID: storeID, key: key, object: object)
            rebuilt.count += 1
        }
        rebuilt.known = known
        self = rebuilt
    }
}
