/// An attribute value read as a number when it is stored as one (see
/// ``PredicateFields/number(_:)``): what scans that compare or add numbers read instead of a
/// ``Value``.
@usableFromInline
package enum StoredNumber {
    /// An integer attribute value.
    case integer(Int64)
    /// A double attribute value.
    case double(Double)
    /// Any other value (`nil`, a boolean, a decimal, a non-number, or bytes the checked reader
    /// must judge): read it as a ``Value``.
    case other
}
