import CoreStoreStorage

/// The descriptions of an entity's fields: what a field wrapper's projected value is.
///
/// Declared with the wrappers of ``FieldContainer`` (`@Field.Stored`, `@Field.Coded`,
/// `@Field.Virtual`, `@Field.Relationship`), a field's projected value (`$name`) is a
/// ``FieldDefinition/Stored``, ``FieldDefinition/Coded``, ``FieldDefinition/Virtual`` or
/// ``FieldDefinition/Relationship``: its stored key, initial value, accessors and the like. Key
/// paths to it (`\Person.$name`, of type `KeyPath<Person, FieldDefinition.Stored<String>>`) name
/// the field in type-safe clauses; a field a subclass inherits is named through either class.
public enum FieldDefinition {}

/// What a field contributes to the schema; read from a meta instance by reflection.
enum FieldKind {
    case attribute(AttributeField)
    case relationship(RelationshipField)
    case virtual(name: String)
}

struct AttributeField {
    var name: String
    var type: AttributeType
    var isOptional: Bool
    var initialValue: () -> Value
    var isDynamic: Bool
    var renamingIdentifier: String?
}

struct RelationshipField {
    var name: String
    var kind: RelationshipKind
    var destination: CoreStoreObject.Type
    var inverse: AnyKeyPath?
    var deleteRule: DeleteRule
    var minCount: Int
    var maxCount: Int
    var renamingIdentifier: String?
}

/// Implemented by every field wrapper so schema reflection can find it.
protocol FieldDescribing {
    var cs_fieldKind: FieldKind { get }
    /// The keys whose changes observers also report as changes of this field.
    var cs_affectedByKeyPaths: Set<String> { get }
}

extension FieldDescribing {
    var cs_affectedByKeyPaths: Set<String> { [] }
}

extension FieldKind {
    var name: String {
        switch self {
        case .attribute(let a): return a.name
        case .relationship(let r): return r.name
        case .virtual(let name): return name
        }
    }
}
