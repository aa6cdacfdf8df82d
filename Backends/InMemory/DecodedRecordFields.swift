import CoreStoreStorage

/// A decoded record's attributes as a prepared predicate reads them (see `FieldPredicate`):
/// borrowed through a pointer, so that testing a record during a scan copies nothing.
struct DecodedRecordFields: PredicateFields {
    /// The record, valid for as long as this value is used.
    let pointer: UnsafePointer<Record>

    @inline(__always)
    func number(_ ordinal: Int) -> StoredNumber {
        switch attribute(ordinal) {
        case .int(let value): return .integer(value)
        case .double(let value): return .double(value)
        default: return .other
        }
    }

    /// `.null` past the record's attributes, as for a record read from bytes (stored records
    /// have every attribute of their entity).
    @inline(__always)
    func attribute(_ ordinal: Int) -> Value {
        let attributes = pointer.pointee.attributes
        return ordinal < attributes.count ? attributes[ordinal] : .null
    }

    func record() -> Record {
        pointer.pointee
    }
}
