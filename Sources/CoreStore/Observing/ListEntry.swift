import CoreStoreStorage

/// One member of a monitored list: its identifier and the values of the list's sort keys, so
/// that its position can be found by binary search without touching the object.
struct ListEntry: Sendable {
    let id: ObjectID
    let sortValues: [Value]
}

/// The total order of a monitored list: ``RecordOrder`` (the order every fetch returns), then,
/// for equal record keys in different stores, the store.
struct ListOrdering: Sendable {
    /// The order of the list's sort keys.
    let order: RecordOrder

    /// Whether `a` comes before `b`.
    func precedes(_ a: ListEntry, _ b: ListEntry) -> Bool {
        let c = order.compare(a.sortValues, key: a.id.recordID.key, b.sortValues, key: b.id.recordID.key)
        return c != 0 ? c < 0 : a.id.storeID < b.id.storeID
    }

    /// Whether two entries sort by the same values (their ties are broken by identity only).
    func sameSortValues(_ a: ListEntry, _ b: ListEntry) -> Bool {
        order.compareSortValues(a.sortValues, b.sortValues) == 0
    }

    /// Whether `a` and `b`, values of the first sort key, name the same section.
    func sameSection(_ a: Value, _ b: Value) -> Bool {
        order.compare(a, b, atKey: 0) == 0
    }

    /// Whether a section keyed `a` (a value of the first sort key) comes before one keyed `b`.
    func sectionPrecedes(_ a: Value, _ b: Value) -> Bool {
        order.compare(a, b, atKey: 0) < 0
    }

    /// The first index of `entries` (sorted by this order) whose entry does not precede `entry`.
    func insertionIndex<Entries: RandomAccessCollection<ListEntry>>(of entry: ListEntry, in entries: Entries) -> Int where Entries.Index == Int {
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if precedes(entries[mid], entry) { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
