/// Names the entity a fetch or query reads, and optionally the configurations to read from.
///
/// ```swift
/// try dataStack.fetchAll(From<Person>())               // every store holding Person
/// try dataStack.fetchAll(From<Person>("Archive"))      // only the "Archive" store
/// try dataStack.fetchAll(From<Person>(nil))            // only the store without configuration
/// ```
public struct From<O: CoreStoreObject> {
    /// `nil`: every store holding the entity; otherwise the stores of these configurations
    /// (`nil` inside the list names the store added without configuration).
    public let configurations: [String?]?

    /// Reads from every store that holds the entity.
    public init() {
        self.configurations = nil
    }

    /// Reads only from the store of `configuration` (`nil`: the store without configuration).
    public init(_ configuration: String?) {
        self.configurations = [configuration]
    }

    /// Reads only from the stores of these configurations.
    public init(_ configuration: String?, _ otherConfigurations: String?...) {
        self.configurations = [configuration] + otherConfigurations
    }

    func specification() -> CoreStoreFetchRequest {
        CoreStoreFetchRequest(entityType: O.self, configurations: configurations)
    }
}
