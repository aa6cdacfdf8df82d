/// Names the entity a transaction's `create(_:)` inserts, and optionally the configuration
/// (and so the store) to insert into.
///
/// ```swift
/// let person = transaction.create(Into<Person>())          // the only store holding Person
/// let cached = transaction.create(Into<Person>("Cache"))   // the "Cache" store
/// ```
public struct Into<O: CoreStoreObject> {
    /// Whether a configuration was named (`Into<T>(nil)` names the store without one).
    public let inAnyStore: Bool
    /// The configuration named, when ``inAnyStore`` is false.
    public let configuration: String?

    /// Inserts into the one store that holds the entity; two candidates are an error.
    public init() {
        self.inAnyStore = true
        self.configuration = nil
    }

    /// Inserts into the store of `configuration` (`nil`: the store added without one).
    public init(_ configuration: String?) {
        self.inAnyStore = false
        self.configuration = configuration
    }
}
