/// The columns a query returns and the type it returns them as.
///
/// ```swift
/// let oldest = try dataStack.queryValue(From<Person>(), Select<Person, Int>(.maximum(\.$age)))
/// let rows = try dataStack.queryAttributes(From<Person>(), Select("name", "age"))
/// ```
/// `T` is a ``QueryableAttributeType`` for `queryValue` (which returns the first column of the
/// first row) or `NSDictionary` for `queryAttributes` (one dictionary per row).
public struct Select<O: CoreStoreObject, T: SelectResultType>: Hashable, Sendable {
    /// The columns, in order.
    public let selectTerms: [SelectTerm<O>]

    /// Selects these columns.
    public init(_ selectTerm: SelectTerm<O>, _ selectTerms: SelectTerm<O>...) {
        self.selectTerms = [selectTerm] + selectTerms
    }

    /// Selects these columns.
    public init(_ selectTerms: [SelectTerm<O>]) {
        self.selectTerms = selectTerms
    }
}
