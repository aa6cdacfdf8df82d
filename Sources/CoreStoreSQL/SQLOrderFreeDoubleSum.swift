/// A `sum` or `average` of a double column that the database may add in any order, with a test
/// of each group's values that says when that order cannot change the total
/// (``SQLDialect/orderFreeDoubleAggregate(average:column:)``).
///
/// The reference evaluator adds a group's doubles one by one in record-key order, and floating
/// addition rounds: in general only that order gives its total. Asking a database for it costs a
/// sort (PostgreSQL's `sum(… ORDER BY key)` sorts every group's rows). But when no addition
/// rounds, every order gives the same total. That holds when every value is a multiple of
/// 2⁻¹⁶ and their magnitudes add up to less than 2³⁷: every partial total, in any order, is
/// then a multiple of 2⁻¹⁶ below 2³⁷ in magnitude, which a double holds exactly (53 bits). Whole
/// numbers and binary fractions (halves, quarters, 1/1024ths) with totals up to ~1.4 × 10¹¹
/// qualify; decimal fractions such as `0.1` do not, and neither do NaN or the infinities.
package struct SQLOrderFreeDoubleSum: Sendable {
    /// The aggregate call giving the total (or the average) in whatever order the plan yields,
    /// with the same treatment of a zero's sign and of the division as the key-ordered call
    /// (``SQLDialect/exactDoubleAggregate(average:key:column:)``).
    package let call: String
    /// An aggregate that is true when ``call`` equals the key-ordered total for the group: every
    /// value a multiple of ``granularity`` and their magnitudes adding up to less than
    /// ``magnitudeLimit`` (and true for a group without values).
    package let isExact: String

    /// The granularity the values must have, 2⁻¹⁶.
    package static let granularity: Double = 0x1p-16
    /// The bound on the sum of the values' magnitudes, 2³⁷: with the granularity, 53 bits.
    package static let magnitudeLimit: Double = 0x1p37

    /// Creates the pair.
    package init(call: String, isExact: String) {
        self.call = call
        self.isExact = isExact
    }
}
