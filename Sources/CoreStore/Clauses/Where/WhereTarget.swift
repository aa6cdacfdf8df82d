/// Marks how many values a typed key path reaches, so that the compiler accepts comparisons only
/// where they have one meaning.
///
/// A key path reaches ``Single`` when every relationship it crosses is to-one, and
/// ``Collection`` as soon as it crosses a to-many relationship. A collection must be narrowed
/// with `any()`, `all()` or `none()` before it can be compared:
/// ```swift
/// From<Dog>().where((\.$master ~ \.$name) == "Ann")            // one value
/// From<Person>().where((\.$pets ~ \.$name).any() == "Rex")      // many values
/// ```
public enum WhereTarget {
    /// The key path reaches exactly one value per object.
    public enum Single {}
    /// The key path crosses a to-many relationship and reaches any number of values.
    public enum Collection {}
}

/// A relationship value type that holds many objects (`[T]` or `Set<T>`); its key paths can be
/// counted with `count()`.
public protocol ToManyRelationshipType: FieldRelationshipType {}

extension Array: ToManyRelationshipType where Element: CoreStoreObject {}
extension Set: ToManyRelationshipType where Element: CoreStoreObject {}

/// Implemented by `FieldDefinition.Relationship` so that extensions can name its value type.
public protocol FieldRelationshipKeyPathValue {
    /// The relationship's Swift type (`T?`, `[T]` or `Set<T>`).
    associatedtype RelationshipValue: FieldRelationshipType
    /// The stored key.
    var keyPath: String { get }
}

extension FieldDefinition.Relationship: FieldRelationshipKeyPathValue {
    /// The relationship's Swift type.
    public typealias RelationshipValue = V
}
