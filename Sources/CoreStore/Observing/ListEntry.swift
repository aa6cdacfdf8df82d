import CoreStoreStorage

/// One member of a monitored list: its identifier and the values of the list's sort keys, so
/// that its position can be found by binary search without touching the object.
struct ListEntry: Sendable {
    let id: ObjectID
    let sortValues: [Value]
}

/// The total order of a monitored list: the sort keys with the reference order of
/// ``Value/storageOrder(_:_:)``, ties broken by record key and then by store, as fetches order
/// them.
struct ListOrdering: Sendable {
    /// Per sort key, whether it ascends.
    let ascending: [Bool]

    /// Whether `a` comes before `b`.
    func precedes(_ a: ListEntry, _ b: ListEntry) -> Bool {
        for k in ascending.indices {
            let c = Value.storageOrder(a.sortValues[k], b.sortValues[k])
            if c != 0 { return ascending[k] ? c < 0 : c > 0 }
        }
        if a.id.recordID.key != b.id.recordID.key { return a.id.recordID.key < b.id.recordID.key }
        return a.id.storeID < b.id.storeID
    }

    /// Whether two entries sort by the same values (their ties are broken by identity only).
    func sameSortValues(_ a: ListEntry, _ b: ListEntry) -> Bool {
        zip(a.sortValues, b.sortValues).allSatisfy { Value.storageOrder($0, $1) == 0 }
    }

    /// The first index of `entries` (sorted by this order) whose entry does not precede `entry`.
    func insertionIndex(of entry: ListEntry, in entries: [ListEntry]) -> Int {
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if precedes(entries[mid], entry) { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
