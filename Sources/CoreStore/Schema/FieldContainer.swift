/// The property wrappers of one model type, as CoreStore spells them: inside a
/// `CoreStoreObject` subclass, `Field` is `FieldContainer<Self>`, so `@Field.Stored`,
/// `@Field.Coded`, `@Field.Virtual` and `@Field.Relationship` know the class they belong to.
/// That is what lets a custom accessor's closure be written without naming it:
///
/// ```swift
/// final class Person: CoreStoreObject {
///     @Field.Stored("name", customSetter: { (object, field, newValue) in
///         field.primitiveValue = newValue
///         object.$displayName.primitiveValue = nil
///     })
///     var name: String = ""
/// }
/// ```
///
/// A wrapper's projected value (`$name`) is the field's description, a ``FieldDefinition/Stored``,
/// ``FieldDefinition/Coded``, ``FieldDefinition/Virtual`` or ``FieldDefinition/Relationship``: key paths such as
/// `\Person.$name` name it in clauses, and a field inherited from a superclass works with the
/// subclass's key paths (`\Dog.$name`).
public enum FieldContainer<O: CoreStoreObject> {}

/// A model type: CoreStore's name for what `CoreStoreObject` adopts.
public protocol DynamicObject: AnyObject {}

extension CoreStoreObject: DynamicObject {}

extension DynamicObject where Self: CoreStoreObject {
    /// The property wrappers of this type: `@Field.Stored("name") var name: String = ""`.
    public typealias Field = FieldContainer<Self>
}
