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

extension StoredNumber {
    /// Whether this number comes strictly after `boundary` in a sort that is `ascending` or
    /// not, when both are integers or both doubles (this one not NaN): the order
    /// ``Value/storageOrder(_:_:)`` gives them. `nil` for any other pair, which a comparison of
    /// ``Value``s decides.
    @inlinable @inline(__always)
    package func comesStrictlyAfter(_ boundary: StoredNumber, ascending: Bool) -> Bool? {
        let order: Int
        switch (self, boundary) {
        case (.integer(let x), .integer(let y)):
            order = x == y ? 0 : (x < y ? -1 : 1)
        case (.double(let x), .double(let y)) where !x.isNaN:
            order = x == y ? 0 : (x < y ? -1 : 1)
        default:
            return nil
        }
        return ascending ? order > 0 : order < 0
    }
}
