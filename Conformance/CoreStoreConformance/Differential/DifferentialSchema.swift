import CoreStoreStorage

/// The fixed schema every differential sequence runs on.
///
/// - `Item` (abstract): `name` (string, indexed), `code` (optional string, unique across `Item`
///   and its sub-entities), `rank` (optional integer, indexed), `score` (optional double),
///   `flag` (optional boolean); to-one `owner` (inverse `Owner.items`) and many-to-many `tags`
///   (inverse `Tag.items`).
/// - `Gadget` (child of `Item`): adds `weight` (optional double).
/// - `Widget` (child of `Item`): adds `level` (optional integer), `label` (optional string),
///   `price` (optional decimal) and `stamp` (optional date).
/// - `Owner`: `name` (string, indexed), `age` (optional integer); to-many `items`.
/// - `Tag`: `title` (string); to-many `items`.
public enum DifferentialSchema {
    /// The schema's model version.
    public static let modelVersion = "Differential-1"

    private static let itemAttributes = [
        AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: .string(""), isIndexed: true),
        AttributeDescription(name: "code", type: .string, isOptional: true),
        AttributeDescription(name: "rank", type: .integer, isOptional: true, isIndexed: true),
        AttributeDescription(name: "score", type: .double, isOptional: true),
        AttributeDescription(name: "flag", type: .bool, isOptional: true),
    ]

    private static let itemRelationships = [
        RelationshipDescription(name: "owner", kind: .toOne, destinationEntity: "Owner", inverseName: "items"),
        RelationshipDescription(name: "tags", kind: .toManyUnordered, destinationEntity: "Tag", inverseName: "items"),
    ]

    /// The store schema the runner opens every store with.
    public static let schema = StoreSchema(modelVersion: modelVersion, schemaHash: "differential-schema-1", entities: [
        EntityDescription(name: "Item", isAbstract: true, attributes: itemAttributes, relationships: itemRelationships,
                          uniqueConstraints: [["code"]]),
        EntityDescription(name: "Gadget", parentName: "Item", attributes: itemAttributes + [
            AttributeDescription(name: "weight", type: .double, isOptional: true),
        ], relationships: itemRelationships),
        EntityDescription(name: "Widget", parentName: "Item", attributes: itemAttributes + [
            AttributeDescription(name: "level", type: .integer, isOptional: true),
            AttributeDescription(name: "label", type: .string, isOptional: true),
            AttributeDescription(name: "price", type: .decimal, isOptional: true),
            AttributeDescription(name: "stamp", type: .date, isOptional: true),
        ], relationships: itemRelationships),
        EntityDescription(name: "Owner", attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: .string(""), isIndexed: true),
            AttributeDescription(name: "age", type: .integer, isOptional: true),
        ], relationships: [
            RelationshipDescription(name: "items", kind: .toManyUnordered, destinationEntity: "Item", inverseName: "owner"),
        ]),
        EntityDescription(name: "Tag", attributes: [
            AttributeDescription(name: "title", type: .string, isOptional: false, defaultValue: .string("")),
        ], relationships: [
            RelationshipDescription(name: "items", kind: .toManyUnordered, destinationEntity: "Item", inverseName: "tags"),
        ]),
    ])

    /// The entities that can hold records.
    public static let concreteEntities = ["Gadget", "Widget", "Owner", "Tag"]

    /// The entities a request may name.
    public static let fetchableEntities = ["Item", "Gadget", "Widget", "Owner", "Tag"]
}
