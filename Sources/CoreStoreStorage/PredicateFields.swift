/// The attributes of one record as a prepared predicate (``FieldPredicate``) reads them: one at
/// a time, by ordinal in the record's entity, and the whole record only for what the
/// predicate cannot decide from single attributes.
@usableFromInline
package protocol PredicateFields {
    /// The attribute at `ordinal` when it is stored as an integer or a double, without making
    /// a ``Value``; ``StoredNumber/other`` for any other value.
    func number(_ ordinal: Int) throws -> StoredNumber
    /// The value of the attribute at `ordinal`.
    func attribute(_ ordinal: Int) throws -> Value
    /// The whole record.
    func record() throws -> Record
}
