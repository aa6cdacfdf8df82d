import CoreStoreStorage

/// The record a scan is looking at: its header, its attributes parsed on first use and the
/// whole record decoded at most once, when something needs it. One instance is reused for
/// every record of a scan.
final class ScanCandidate: PredicateFields {
    // One scan uses a candidate, on one thread, and no method re-enters another, so accesses
    // never overlap: the per-access runtime exclusivity check (about a tenth of a filtered
    // scan's instructions) is switched off for the decoded record.
    /// The current record's bytes, header parsed.
    private let fields = RecordFields()
    /// The current record, once decoded.
    @exclusivity(unchecked) private var decoded: Record?
    /// The schema's entity names, for decoding without new strings.
    private let names: EntityNames

    /// A candidate whose records name entities from `names`.
    init(names: EntityNames) {
        self.names = names
    }

    /// The record's bytes, borrowed from the engine until the scan moves on.
    var bytes: UnsafeRawBufferPointer { fields.bytes }

    /// The record key.
    var key: Int64 { fields.key }

    /// Moves to the record `bytes` hold, parsing only its header; returns the index of its
    /// entity in ``EntityNames`` (`nil` when the schema lacks it). The bytes must stay valid
    /// until the next `reset`.
    func reset(_ bytes: UnsafeRawBufferPointer) throws -> Int? {
        decoded = nil
        return try fields.loadHeader(bytes, names: names)
    }

    /// The value of the attribute at `ordinal`, decoded from the bytes alone.
    func attribute(_ ordinal: Int) throws -> Value {
        try fields.attribute(ordinal)
    }

    /// The attribute at `ordinal` when it is stored as an integer or a double, without making
    /// a ``Value`` (see ``RecordFields/number(_:)``).
    @inline(__always)
    func number(_ ordinal: Int) throws -> StoredNumber {
        try fields.number(ordinal)
    }

    /// The whole record.
    func record() throws -> Record {
        if let decoded { return decoded }
        let record = try fields.record(names: names)
        decoded = record
        return record
    }
}
