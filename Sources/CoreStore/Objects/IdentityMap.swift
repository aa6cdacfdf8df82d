import CoreStoreStorage

/// A context's objects by identifier: at most one object per stored record.
///
/// An open-addressing table (linear probing, at most half full) keyed by the store and the
/// record key: a lookup is a few instructions instead of a `Hasher` run, which mattered at one
/// or two lookups per fetched row. It holds its objects
/// strongly; ``removeUnreferenced(keepingRoomFor:)`` drops those nobody else holds. Beside the
/// table it keeps each store's keys as a ``KnownRecordKeys``, which a fetch hands to its
/// backend as a snapshot (``knownKeys(of:)``) so that held records are not decoded again.
///
/// A removal leaves its slot *vacated* (a tombstone that lookups step over) instead of moving
/// the rest of the probe run back: stores hand out keys counting up, so the runs are long and
/// a bulk delete would rescan them once per object. A vacated slot holds a marker object under
/// a store identifier no store has, so that a lookup still stops at the first slot without an
/// object and never matches it. Vacated slots count against the load, and the table is rebuilt
/// without them once they are many (``reserveCapacity(_:)``).
struct IdentityMap {
    private struct Slot {
        var storeID: UInt64 = 0
        var key: Int64 = 0
        var object: CoreStoreObject?

        /// Whether the slot held an object that was removed: lookups go on past it.
        var isVacated: Bool { storeID == IdentityMap.vacated }

        /// The object held, `nil` for an empty or vacated slot.
        var heldObject: CoreStoreObject? { isVacated ? nil : object }
    }

    /// The store identifier of a vacated slot (stores are numbered from 1 up).
    private static let vacated = UInt64.max
    /// What a vacated slot holds. Never handed out, never changed.
    nonisolated(unsafe) private static let vacatedMarker = CoreStoreObject(asMeta: ())

    private var slots: [Slot]
    private var mask: Int
    /// The number of objects held.
    private(set) var count = 0
    /// The number of vacated slots.
    private var vacatedCount = 0
    /// The keys held, per store (a context reads one or a few stores: searched in order).
    private var known: [(storeID: UInt64, keys: KnownRecordKeys)] = []
    /// Whether inserts leave their keys out of ``known`` for now: a batch of registrations
    /// adds them all at its end (``endDeferringKnownKeys(_:of:)``), a page of the bitmap at a
    /// time instead of one lookup per key.
    private var defersKnownKeys = false

    /// An empty map. Its table is allocated by the first insert, so that a context or a
    /// transaction that never holds an object costs no allocation.
    init() {
        slots = []
        mask = 0
    }

    /// An empty map with room for `minimumCapacity` objects. The smallest table has four slots:
    /// most transactions hold a few objects, and every slot is made when the table is and
    /// destroyed with it.
    init(minimumCapacity: Int) {
        var capacity = 4
        while capacity < minimumCapacity * 2 { capacity *= 2 }
        if capacity <= [Slot].filledByAppendingLimit {
            // A transaction's small table: without the run-time type lookup (see there).
            slots = Array(filledWith: Slot(), count: capacity)
        } else {
            // Each slot made in place from a literal empty one (the compiler writes zeros):
            // `Array(repeating:count:)` copies one value into every slot, retaining its (absent)
            // object each time — a call per slot. The one run-time type lookup is nothing beside
            // a table this size.
            slots = Array(unsafeUninitializedCapacity: capacity) { buffer, initialized in
                let base = buffer.baseAddress.unsafelyUnwrapped
                for i in 0..<capacity { (base + i).initialize(to: Slot()) }
                initialized = capacity
            }
        }
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
        guard let i = knownIndex(of: storeID, adding: isHeld) else { return }
        if isHeld { known[i].keys.insert(key) } else { known[i].keys.remove(key) }
    }

    /// Where store `storeID`'s known keys are in ``known``; added when missing if `adding`.
    private mutating func knownIndex(of storeID: UInt64, adding: Bool) -> Int? {
        var i = 0
        while i < known.count && known[i].storeID != storeID { i += 1 }
        if i == known.count {
            guard adding else { return nil }
            known.append((storeID, KnownRecordKeys()))
        }
        return i
    }

    /// Starts a batch of inserts whose keys the caller hands over at its end: until
    /// ``endDeferringKnownKeys(_:of:)``, the known keys lag behind the table (call with the
    /// context's lock held, and end the batch before releasing it, so that no reader sees them).
    mutating func beginDeferringKnownKeys() {
        defersKnownKeys = true
    }

    /// Ends the batch begun by ``beginDeferringKnownKeys()``: `keys`, which must include every
    /// key of store `storeID` inserted since (keys already known may be among them), become
    /// known. The batch inserted objects of that store only.
    mutating func endDeferringKnownKeys(_ keys: [Int64], of storeID: UInt64) {
        defersKnownKeys = false
        guard !keys.isEmpty, let i = knownIndex(of: storeID, adding: true) else { return }
        keys.withUnsafeBufferPointer { known[i].keys.insert(contentsOf: $0) }
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
            if !defersKnownKeys { noteKnown(key, of: storeID, isHeld: true) }
        }
    }

    private mutating func remove(_ id: ObjectID) {
        _ = removeObject(storeID: id.storeID, key: id.recordID.key)
    }

    /// Removes the object of record `key` of store `storeID` and returns it (`nil` if none is
    /// held): one lookup, for a merge that drops what a commit deleted.
    mutating func removeObject(storeID: UInt64, key: Int64) -> CoreStoreObject? {
        guard count > 0 else { return nil }
        let found = index(storeID: storeID, key: key)
        // Through the buffer: one uniqueness check for the whole write.
        let removed = slots.withUnsafeMutableBufferPointer { slots -> CoreStoreObject? in
            guard let object = slots[found].object.take() else { return nil }
            slots[found].storeID = Self.vacated
            slots[found].object = Self.vacatedMarker
            return object
        }
        guard let removed else { return nil }
        count -= 1
        vacatedCount += 1
        noteKnown(key, of: storeID, isHeld: false)
        return removed
    }

    /// Makes room for `total` objects without growing again. Vacated slots count as taken:
    /// when they are many (an eighth of the table) the table is rebuilt without them, at its
    /// size or larger if `total` needs it; when they are few it doubles, so that a rebuild is
    /// never paid for a handful of them.
    @inline(__always)
    mutating func reserveCapacity(_ total: Int) {
        guard (total + vacatedCount) * 2 > slots.count else { return }
        makeRoom(for: total)
    }

    /// The rebuild ``reserveCapacity(_:)`` decided on (kept out of line: it runs once in many
    /// inserts).
    @inline(never)
    private mutating func makeRoom(for total: Int) {
        rebuild(capacityFor: max(total, vacatedCount * 8 >= slots.count ? slots.count / 2 : slots.count))
    }

    /// The number of slots (for tests: vacated slots must not make the table grow forever).
    var capacity: Int { slots.count }

    /// Whether the map holds no object.
    var isEmpty: Bool { count == 0 }

    /// Every object held.
    var objects: [CoreStoreObject] {
        slots.compactMap(\.heldObject)
    }

    /// The longest stretch of occupied or vacated slots: what a miss may have to scan.
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
        for i in slots.indices where slots[i].object != nil && !slots[i].isVacated {
            if isKnownUniquelyReferenced(&slots[i].object) {
                slots[i].object = nil
                count -= 1
                noteKnown(slots[i].key, of: slots[i].storeID, isHeld: false)
            }
        }
        // Emptied slots break the probe runs: the survivors are placed anew. When every object
        // is still held (a fetch's own objects, swept while the caller holds them), the table
        // stays as it is.
        if count == before && (count + vacatedCount + room) * 2 <= slots.count { return }
        rebuild(capacityFor: count + room)
    }

    /// Moves every object into a table sized for `total` (no reference is copied).
    private mutating func rebuild(capacityFor total: Int) {
        var rebuilt = IdentityMap(minimumCapacity: max(total, count))
        let mask = rebuilt.mask
        // Through both buffers: one uniqueness check per table, not one per slot touched.
        rebuilt.count = slots.withUnsafeMutableBufferPointer { old in
            rebuilt.slots.withUnsafeMutableBufferPointer { new in
                var moved = 0
                for index in old.indices {
                    guard !old[index].isVacated, let object = old[index].object.take() else { continue }
                    let storeID = old[index].storeID, key = old[index].key
                    var i = Self.home(storeID, key, mask: mask)
                    while new[i].object != nil { i = (i + 1) & mask }
                    new[i] = Slot(storeID: storeID, key: key, object: object)
                    moved += 1
                }
                return moved
            }
        }
        rebuilt.known = known
        rebuilt.defersKnownKeys = defersKnownKeys
        self = rebuilt
    }
}
