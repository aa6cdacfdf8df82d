/// A transaction's `sourceIdentifier` on its way to the observers of the commit it made:
/// whatever the caller passed (CoreStore's `Any?`), carried unchanged to the delivery queue.
///
/// `@unchecked Sendable`: the value is only handed back to the caller's own observers, as
/// CoreStore does; it is never read or changed on the way.
struct SourceIdentifierBox: @unchecked Sendable {
    let value: Any?

    /// No identifier: commits of transactions begun without one, refreshes, other processes.
    static let none = SourceIdentifierBox(value: nil)
}
