import CoreStoreStorage

/// The namespace of the property wrappers that declare an entity's properties:
/// ``Field/Stored``, ``Field/Virtual``, ``Field/Coded`` and ``Field/Relationship``.
///
/// ```swift
/// final class Person: CoreStoreObject {
///     @Field.Stored("name") var name: String = ""
///     @Field.Stored("id", dynamicInitialValue: { UUID() }) var id: UUID
///     @Field.Relationship("pets", inverse: \Dog.$master) var pets: Set<Dog>
/// }
/// ```
/// The string is the stored key used by predicates, sorts and stores; it may differ from the
/// Swift property name. The projected value (`$name`) is the field itself, so `\Person.$name`
/// names the field in type-safe clauses.
public enum Field {}

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
