import CoreStoreStorage

/// The ascending key order of records of one state, found without moving the records.
///
/// Keys are store-wide and handed out in increasing order, so the records a read selects
/// usually have keys in a range not much wider than their number. Then each record is placed in
/// the slot of its key (a counting sort, linear); otherwise the positions are sorted by key.
enum RecordKeyOrder {
    /// A key range at most this many times wider than the number of records is placed in slots.
    static let maximumSlotsPerRecord: Int64 = 4

    /// The positions of `records` in ascending order of their keys.
    ///
    /// Precondition: the keys are distinct (records of one state). Should two be equal, the
    /// positions are sorted instead, which still returns every position once.
    static func ascending(_ records: [Record]) -> [Int] {
        guard let first = records.first else { return [] }
        var low = first.id.key, high = first.id.key
        for record in records {
            low = min(low, record.id.key)
            high = max(high, record.id.key)
        }
        let (span, overflow) = high.subtractingReportingOverflow(low)
        if !overflow, span / maximumSlotsPerRecord < Int64(records.count) {
            var slots = [Int](repeating: -1, count: Int(span) + 1)
            var distinct = true
            for (position, record) in records.enumerated() {
                let slot = Int(record.id.key - low)
                if slots[slot] >= 0 { distinct = false; break }
                slots[slot] = position
            }
            if distinct { return slots.filter { $0 >= 0 } }
        }
        return records.indices.sorted { records[$0].id.key < records[$1].id.key }
    }

    /// `records` rearranged in ascending key order.
    static func sorted(_ records: [Record]) -> [Record] {
        if records.count < 2 { return records }
        return ascending(records).map { records[$0] }
    }
}
