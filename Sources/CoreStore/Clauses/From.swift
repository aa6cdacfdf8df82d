/// Names the entity a fetch or query reads, and optionally the configurations to read from.
///
/// ```swift
/// try dataStack.fetchAll(From<Person>())               // every store holding Person
/// try dataStack.fetchAll(From<Person>("Archive"))      // only the "Archive" store
/// try dataStack.fetchAll(From<Person>(nil))            // only the store without configuration
/// ```
public struct From<O: CoreStoreObject> {
    /// The model class read: `O`, or the subclass given to the initializer (whose entity, and
    /// its sub-entities, the fetch then reads, each result typed as `O`).
    public let entityClass: O.Type

    /// `nil`: every store holding the entity; otherwise the stores of these configurations
    /// (`nil` inside the list names the store added without configuration).
    public let configurations: [ModelConfiguration]?

    /// Reads from every store that holds the entity.
    public init() {
        self.init(entity: O.self, configurations: nil)
    }

    /// Reads from every store that holds `entity`'s entity (`From(Person.self)`;
    /// `From<Animal>(Dog.self)` reads only dogs, as `Animal`s).
    public init(_ entity: O.Type) {
        self.init(entity: entity, configurations: nil)
    }

    /// Reads only from the store of `configuration` (`nil`: the store without configuration).
    public init(_ configuration: ModelConfiguration) {
        self.init(entity: O.self, configurations: [configuration])
    }

    /// Reads only from the stores of these configurations.
    public init(_ configuration: ModelConfiguration, _ otherConfigurations: ModelConfiguration...) {
        self.init(entity: O.self, configurations: [configuration] + otherConfigurations)
    }

    /// Reads only from the stores of these configurations.
    public init(_ configurations: [ModelConfiguration]) {
        self.init(entity: O.self, configurations: configurations)
    }

    /// Reads `entity` only from the stores of these configurations.
    public init(_ entity: O.Type, _ configuration: ModelConfiguration, _ otherConfigurations: ModelConfiguration...) {
        self.init(entity: entity, configurations: [configuration] + otherConfigurations)
    }

    /// Reads `entity` only from the stores of these configurations.
    public init(_ entity: O.Type, _ configurations: [ModelConfiguration]) {
        self.init(entity: entity, configurations: configurations)
    }

    private init(entity: O.Type, configurations: [ModelConfiguration]?) {
        self.entityClass = entity
        self.configurations = configurations
    }

    func specification() -> CoreStoreFetchRequest {
        CoreStoreFetchRequest(entityType: entityClass, configurations: configurations)
    }
}
