import CoreStoreStorage

/// The ascending key order of records of one state, found without moving the records.
///
/// Keys are store-wide and handed out in increasing order, so the records a read selects
/// usually have keys in a range not much wider than their number. Then each record is placed in
/// the slot of its key (a counting sort, linear); otherwise the positions are sorted by key.
enum RecordKeyOrder {
    /// A key range at most this many times wider than the number of records is placed in slots.
    static let maximumSlotsPerRecord: Int64 = 4

    /// The positions of `keys` in ascending order of the keys.
    ///
    /// Precondition: the keys are distinct (keys of records of one state). Should two be equal,
    /// the positions are sorted instead, which still returns every position once.
    static func ascending(_ keys: [Int64]) -> [Int] {
        guard let first = keys.first else { return [] }
        // Scans of one entity already come in key order.
        if zip(keys, keys.dropFirst()).allSatisfy({ $0 < $1 }) { return Array(keys.indices) }
        var low = first, high = first
        for key in keys {
            low = min(low, key)
            high = max(high, key)
        }
        let (span, overflow) = high.subtractingReportingOverflow(low)
        if !overflow, span / maximumSlotsPerRecord < Int64(keys.count) {
            var slots = [Int](repeating: -1, count: Int(span) + 1)
            var distinct = true
            for (position, key) in keys.enumerated() {
                let slot = Int(key - low)
                if slots[slot] >= 0 { distinct = false; break }
                slots[slot] = position
            }
            if distinct {
                var order: [Int] = []
                order.reserveCapacity(keys.count)
                for position in slots where position >= 0 { order.append(position) }
                return order
            }
        }
        return keys.indices.sorted { keys[$0] < keys[$1] }
    }

    /// `records` rearranged in ascending key order.
    static func sorted(_ records: [Record]) -> [Record] {
        if zip(records, records.dropFirst()).allSatisfy({ $0.id.key < $1.id.key }) { return records }
        return ascending(records.map(\.id.key)).map { records[$0] }
    }
}
