import CoreStoreStorage

/// Receives the records a read selects, one at a time, in no particular order.
///
/// The reader's scan hands records to a sink passed `inout`, so a sink that is a struct is
/// mutated in place without the dynamic exclusivity checks a captured variable costs per record.
protocol RecordSink {
    /// Takes one selected record; returns `false` to stop the scan (the sink needs no more).
    mutating func take(_ record: Record) -> Bool
}

/// Collects the selected records.
struct RecordCollector: RecordSink {
    /// The records taken so far.
    var records: [Record] = []

    /// Appends `record`.
    mutating func take(_ record: Record) -> Bool {
        records.append(record)
        return true
    }
}

/// Counts the selected records.
struct RecordCounter: RecordSink {
    /// The number of records taken so far.
    var count = 0

    /// Counts `record`.
    mutating func take(_ record: Record) -> Bool {
        count += 1
        return true
    }
}
