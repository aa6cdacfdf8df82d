/// An entity declaration: a `CoreStoreObject` subclass, the stored entity name and its options.
/// Type-erased base of ``Entity``.
public class DynamicEntity: Hashable, @unchecked Sendable {
    /// The Swift class of the entity's objects.
    public let type: CoreStoreObject.Type
    /// The stored entity name, independent of the class name.
    public let entityName: String
    /// Whether the entity only exists through its sub-entities.
    public let isAbstract: Bool
    let indexKeyPaths: [[AnyKeyPath]]
    let uniqueKeyPaths: [[AnyKeyPath]]

    init(type: CoreStoreObject.Type, entityName: String, isAbstract: Bool, indexes: [[AnyKeyPath]], uniqueConstraints: [[AnyKeyPath]]) {
        self.type = type
        self.entityName = entityName
        self.isAbstract = isAbstract
        self.indexKeyPaths = indexes
        self.uniqueKeyPaths = uniqueConstraints
    }

    /// Entities are equal when they declare the same class under the same name.
    public static func == (lhs: DynamicEntity, rhs: DynamicEntity) -> Bool {
        lhs.type == rhs.type && lhs.entityName == rhs.entityName
    }

    /// Hashes the class and the name.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(type))
        hasher.combine(entityName)
    }
}

/// Declares that objects of class `O` are stored as the entity `entityName`.
///
/// ```swift
/// Entity<Animal>("Animal", isAbstract: true)
/// Entity<Dog>("Dog", indexes: [[\Dog.$name]], uniqueConstraints: [[\Dog.$tag]])
/// ```
/// Sub-entities are found from class inheritance: `Dog: Animal` makes "Dog" a sub-entity of
/// "Animal" when both are declared in the same schema.
public final class Entity<O: CoreStoreObject>: DynamicEntity, @unchecked Sendable {
    /// Declares the entity.
    /// - Parameters:
    ///   - entityName: the stored name.
    ///   - isAbstract: `true` if only sub-entities have objects.
    ///   - indexes: lists of fields (`\O.$field`) to index together; a single-field list
    ///     indexes that field.
    ///   - uniqueConstraints: lists of fields whose combined values must be unique.
    public init(
        _ entityName: String, isAbstract: Bool = false,
        indexes: [[PartialKeyPath<O>]] = [], uniqueConstraints: [[PartialKeyPath<O>]] = []
    ) {
        super.init(
            type: O.self, entityName: entityName, isAbstract: isAbstract,
            indexes: indexes.map { $0.map { $0 as AnyKeyPath } },
            uniqueConstraints: uniqueConstraints.map { $0.map { $0 as AnyKeyPath } }
        )
    }
}
