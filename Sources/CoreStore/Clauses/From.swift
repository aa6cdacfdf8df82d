/// Names the entity a fetch or query reads, and optionally the configurations to read from.
///
/// ```swift
/// try dataStack.fetchAll(From<Person>())               // every store holding Person
/// try dataStack.fetchAll(From<Person>("Archive"))      // only the "Archive" store
/// try dataStack.fetchAll(From<Person>(nil))            // only the store without configuration
/// ```
public struct From<O: CoreStoreObject> {
    /// The model class read.
    public let entityClass: O.Type = O.self

    /// `nil`: every store holding the entity; otherwise the stores of these configurations
    /// (`nil` inside the list names the store added without configuration).
    public let configurations: [ModelConfiguration]?

    /// Reads from every store that holds the entity.
    public init() {
        self.configurations = nil
    }

    /// Reads from every store that holds `entity`'s entity (`From(Person.self)`).
    public init(_ entity: O.Type) {
        self.init()
    }

    /// Reads only from the store of `configuration` (`nil`: the store without configuration).
    public init(_ configuration: ModelConfiguration) {
        self.configurations = [configuration]
    }

    /// Reads only from the stores of these configurations.
    public init(_ configuration: ModelConfiguration, _ otherConfigurations: ModelConfiguration...) {
        self.configurations = [configuration] + otherConfigurations
    }

    /// Reads only from the stores of these configurations.
    public init(_ configurations: [ModelConfiguration]) {
        self.configurations = configurations
    }

    /// Reads `entity` only from the stores of these configurations.
    public init(_ entity: O.Type, _ configuration: ModelConfiguration, _ otherConfigurations: ModelConfiguration...) {
        self.configurations = [configuration] + otherConfigurations
    }

    /// Reads `entity` only from the stores of these configurations.
    public init(_ entity: O.Type, _ configurations: [ModelConfiguration]) {
        self.configurations = configurations
    }

    func specification() -> CoreStoreFetchRequest {
        CoreStoreFetchRequest(entityType: O.self, configurations: configurations)
    }
}
