/// Adjusts fetch settings: limit, offset, pending changes, sub-entities.
///
/// ```swift
/// try transaction.fetchAll(From<Person>().tweak {
///     $0.fetchLimit = 10
///     $0.includesPendingChanges = false
/// })
/// ```
/// The closure runs when the fetch is built, after the clauses before it.
public struct Tweak: FetchClause {
    /// The adjustment.
    public let closure: (inout FetchTweaks) -> Void

    /// Creates a tweak.
    public init(_ closure: @escaping (inout FetchTweaks) -> Void) {
        self.closure = closure
    }

    /// Runs the closure on the request's settings.
    public func applyToFetchRequest(_ request: inout CoreStoreFetchRequest) {
        closure(&request.tweaks)
    }
}
