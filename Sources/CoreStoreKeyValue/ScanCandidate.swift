import CoreStoreStorage

/// The record a scan is looking at: its header, its attributes parsed on first use and the
/// whole record decoded at most once, when something needs it. One instance is reused for
/// every record of a scan.
final class ScanCandidate: PredicateFields {
    // One scan uses a candidate, on one thread, and no method re-enters another, so accesses
    // never overlap: the per-access runtime exclusivity check (about a tenth of a filtered
    // scan's instructions) is switched off for the decoded record.
    /// The current record's bytes, header parsed.
    private let fields: RecordFields
    /// The current record, once decoded.
    @exclusivity(unchecked) private var decoded: Record?
    /// Whether ``decoded`` holds a record (tested without copying it).
    @exclusivity(unchecked) private var hasDecoded = false
    /// The ordinal of the last number ``number(_:)`` read from this record, `-1` for none.
    @exclusivity(unchecked) private var lastNumberOrdinal = -1
    /// The number at ``lastNumberOrdinal``.
    @exclusivity(unchecked) private var lastNumber = StoredNumber.other
    /// The schema's entity names, for decoding without new strings.
    private let names: EntityNames

    /// A candidate whose records name entities from `names`; each record's checksum is checked
    /// when `checksChecksums` (see ``KeyValueReader/verifiesStoredBytes``).
    init(names: EntityNames, checksChecksums: Bool) {
        self.names = names
        fields = RecordFields(checksChecksums: checksChecksums)
    }

    /// The record's bytes, borrowed from the engine until the scan moves on.
    var bytes: UnsafeRawBufferPointer { fields.bytes }

    /// The record key.
    var key: Int64 { fields.key }

    /// Moves to the record `bytes` hold, parsing only its header; returns the index of its
    /// entity in ``EntityNames`` (`nil` when the schema lacks it). The bytes must stay valid
    /// until the next `reset`.
    func reset(_ bytes: UnsafeRawBufferPointer) throws -> Int? {
        // Most scans never decode a whole record: nothing to release then.
        if hasDecoded {
            decoded = nil
            hasDecoded = false
        }
        lastNumberOrdinal = -1
        return try fields.loadHeader(bytes, names: names)
    }

    /// The value of the attribute at `ordinal`, decoded from the bytes alone.
    func attribute(_ ordinal: Int) throws -> Value {
        try fields.attribute(ordinal)
    }

    /// The attribute at `ordinal` when it is stored as an integer or a double, without making
    /// a ``Value`` (see ``RecordFields/number(_:)``); remembered until the next record, for
    /// ``rememberedNumber(_:)``.
    @inline(__always)
    func number(_ ordinal: Int) throws -> StoredNumber {
        let number = try fields.number(ordinal)
        lastNumberOrdinal = ordinal
        lastNumber = number
        return number
    }

    /// ``number(_:)`` without remembering it, for a scan that reads each attribute once (an
    /// aggregate).
    @inline(__always)
    func numberReadOnce(_ ordinal: Int) throws -> StoredNumber {
        try fields.number(ordinal)
    }

    /// ``number(_:)``, without reading the bytes again when it was the last number read from
    /// this record: a limited sort ranks on the attribute its filter just tested.
    @inline(__always)
    func rememberedNumber(_ ordinal: Int) throws -> StoredNumber {
        if ordinal == lastNumberOrdinal { return lastNumber }
        return try fields.number(ordinal)
    }

    /// The whole record, for a caller that keeps it and asks for this record no more: a record
    /// already decoded is handed over, and one decoded now is not kept (keeping it would retain
    /// its arrays here and release them again at the next record).
    func takeRecord() throws -> Record {
        guard hasDecoded, let decoded else { return try fields.record(names: names) }
        self.decoded = nil
        hasDecoded = false
        return decoded
    }

    /// The whole record.
    func record() throws -> Record {
        if let decoded { return decoded }
        let record = try fields.record(names: names)
        decoded = record
        hasDecoded = true
        return record
    }
}
