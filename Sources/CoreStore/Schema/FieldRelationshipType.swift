import CoreStoreStorage

/// A Swift type that `@Field.Relationship` can hold: `T?` (to-one), `[T]` (ordered to-many) or
/// `Set<T>` (unordered to-many), where `T` is a `CoreStoreObject` subclass.
public protocol FieldRelationshipType {
    /// The object type at the other end.
    associatedtype DestinationObjectType: CoreStoreObject
    /// What a key path through this relationship reaches: ``WhereTarget/Single`` for `T?`,
    /// ``WhereTarget/Collection`` for `[T]` and `Set<T>`.
    associatedtype ReachedTarget
    /// The relationship's shape.
    static var cs_relationshipKind: RelationshipKind { get }
    /// Builds the value from destination objects.
    static func cs_fromObjects(_ objects: [DestinationObjectType]) -> Self
    /// The destination objects, in order for ordered relationships.
    func cs_toObjects() -> [DestinationObjectType]
}

extension Optional: FieldRelationshipType where Wrapped: CoreStoreObject {
    public typealias DestinationObjectType = Wrapped
    public typealias ReachedTarget = WhereTarget.Single
    public static var cs_relationshipKind: RelationshipKind { .toOne }
    public static func cs_fromObjects(_ objects: [Wrapped]) -> Wrapped? { objects.first }
    public func cs_toObjects() -> [Wrapped] { map { [$0] } ?? [] }
}

extension Array: FieldRelationshipType where Element: CoreStoreObject {
    public typealias DestinationObjectType = Element
    public typealias ReachedTarget = WhereTarget.Collection
    public static var cs_relationshipKind: RelationshipKind { .toManyOrdered }
    public static func cs_fromObjects(_ objects: [Element]) -> [Element] { objects }
    public func cs_toObjects() -> [Element] { self }
}

extension Set: FieldRelationshipType where Element: CoreStoreObject {
    public typealias DestinationObjectType = Element
    public typealias ReachedTarget = WhereTarget.Collection
    public static var cs_relationshipKind: RelationshipKind { .toManyUnordered }
    public static func cs_fromObjects(_ objects: [Element]) -> Set<Element> { Set(objects) }
    public func cs_toObjects() -> [Element] { Array(self) }
}
