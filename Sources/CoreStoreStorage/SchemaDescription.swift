import Foundation

/// What happens to the destination objects of a relationship when its source object is deleted.
public enum DeleteRule: String, Sendable, Hashable {
    /// The destinations stay; their inverse relationship stops pointing at the deleted object.
    case nullify
    /// The destinations are deleted too (and their own delete rules apply).
    case cascade
    /// The commit fails while the relationship still has destinations.
    case deny
}

/// The shape of a relationship.
public enum RelationshipKind: String, Sendable, Hashable {
    /// At most one destination (`T?`).
    case toOne
    /// Any number of destinations kept in a user-defined order (`[T]`).
    case toManyOrdered
    /// Any number of destinations without order (`Set<T>`).
    case toManyUnordered

    /// Whether the relationship can hold more than one destination.
    public var isToMany: Bool { self != .toOne }
}

/// One stored attribute of an entity.
public struct AttributeDescription: Sendable, Hashable {
    /// The stored name (the key used in predicates, sorts and records).
    public var name: String
    /// The storage type.
    public var type: AttributeType
    /// Whether the attribute may hold ``Value/null``.
    public var isOptional: Bool
    /// The value a new record starts with when the object gives none.
    public var defaultValue: Value
    /// Whether a backend should maintain an index on this attribute alone.
    public var isIndexed: Bool
    /// The name this attribute had in the previous model version, for migrations.
    public var renamingIdentifier: String?

    /// Creates an attribute description.
    public init(
        name: String, type: AttributeType, isOptional: Bool, defaultValue: Value = .null,
        isIndexed: Bool = false, renamingIdentifier: String? = nil
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.defaultValue = defaultValue
        self.isIndexed = isIndexed
        self.renamingIdentifier = renamingIdentifier
    }
}

/// One relationship of an entity. Both sides of an inverse pair are stored in the records.
public struct RelationshipDescription: Sendable, Hashable {
    /// The stored name.
    public var name: String
    /// To-one, ordered to-many or unordered to-many.
    public var kind: RelationshipKind
    /// The entity the relationship points to.
    public var destinationEntity: String
    /// The relationship on the destination entity that points back, if any.
    public var inverseName: String?
    /// What deleting the source does to the destinations.
    public var deleteRule: DeleteRule
    /// The fewest destinations a to-many relationship may hold at commit (0: no minimum).
    public var minCount: Int
    /// The most destinations a to-many relationship may hold at commit (0: no maximum).
    public var maxCount: Int
    /// The name this relationship had in the previous model version, for migrations.
    public var renamingIdentifier: String?

    /// Creates a relationship description.
    public init(
        name: String, kind: RelationshipKind, destinationEntity: String, inverseName: String?,
        deleteRule: DeleteRule = .nullify, minCount: Int = 0, maxCount: Int = 0,
        renamingIdentifier: String? = nil
    ) {
        self.name = name
        self.kind = kind
        self.destinationEntity = destinationEntity
        self.inverseName = inverseName
        self.deleteRule = deleteRule
        self.minCount = minCount
        self.maxCount = maxCount
        self.renamingIdentifier = renamingIdentifier
    }
}

/// One entity: a kind of record with attributes and relationships.
///
/// `attributes` and `relationships` list **all** of the entity's properties, inherited ones
/// first in the parent's order, then the entity's own. The position of a property in these
/// arrays is its *ordinal*: a ``Record`` of this entity holds its values in the same order.
public struct EntityDescription: Sendable, Hashable {
    /// The stored entity name (independent of any Swift class name).
    public var name: String
    /// The parent entity's name, for entity inheritance.
    public var parentName: String?
    /// An abstract entity has no records of its own, only those of its sub-entities.
    public var isAbstract: Bool
    /// All attributes, inherited first; the index is the attribute's ordinal.
    public var attributes: [AttributeDescription]
    /// All relationships, inherited first; the index is the relationship's ordinal.
    public var relationships: [RelationshipDescription]
    /// Compound indexes, each a list of attribute names.
    public var indexes: [[String]]
    /// Uniqueness constraints, each a list of attribute names whose combined values must be
    /// unique across the entity and its sub-entities.
    public var uniqueConstraints: [[String]]

    /// Creates an entity description.
    public init(
        name: String, parentName: String? = nil, isAbstract: Bool = false,
        attributes: [AttributeDescription], relationships: [RelationshipDescription] = [],
        indexes: [[String]] = [], uniqueConstraints: [[String]] = []
    ) {
        self.name = name
        self.parentName = parentName
        self.isAbstract = isAbstract
        self.attributes = attributes
        self.relationships = relationships
        self.indexes = indexes
        self.uniqueConstraints = uniqueConstraints
    }

    /// The ordinal of the attribute with this name, if any.
    public func attributeOrdinal(_ name: String) -> Int? {
        attributes.firstIndex { $0.name == name }
    }

    /// The ordinal of the relationship with this name, if any.
    public func relationshipOrdinal(_ name: String) -> Int? {
        relationships.firstIndex { $0.name == name }
    }
}

/// The schema a store is opened with: the entities of one model version that live in it.
///
/// A store receives only the entities of its configuration. Lookups by name are constant-time.
public struct StoreSchema: Sendable, Hashable {
    /// The model version name (for example `"V1"`).
    public var modelVersion: String
    /// A stable hash of the canonical schema description; a store keeps it to detect a model
    /// that no longer matches its data.
    public var schemaHash: String
    /// The entities, parents before children.
    public let entities: [EntityDescription]
    private let entityIndex: [String: Int]
    private let childrenIndex: [String: [String]]
    private let attributeIndex: [String: [String: Int]]
    private let relationshipIndex: [String: [String: Int]]
    /// Whether some relationship names an inverse: a commit keeps inverses consistent only then.
    let hasInverseRelationships: Bool
    /// Whether some to-many relationship bounds its count: a commit checks counts only then.
    let hasBoundedToManyRelationships: Bool

    /// Creates a store schema; `entities` must list parents before their children.
    public init(modelVersion: String, schemaHash: String, entities: [EntityDescription]) {
        self.modelVersion = modelVersion
        self.schemaHash = schemaHash
        self.entities = entities
        var index: [String: Int] = [:]
        var children: [String: [String]] = [:]
        var attributes: [String: [String: Int]] = [:]
        var relationships: [String: [String: Int]] = [:]
        for (i, entity) in entities.enumerated() {
            index[entity.name] = i
            if let parent = entity.parentName { children[parent, default: []].append(entity.name) }
            var a: [String: Int] = [:]
            for (j, attribute) in entity.attributes.enumerated() { a[attribute.name] = j }
            attributes[entity.name] = a
            var r: [String: Int] = [:]
            for (j, relationship) in entity.relationships.enumerated() { r[relationship.name] = j }
            relationships[entity.name] = r
        }
        self.entityIndex = index
        self.childrenIndex = children
        self.attributeIndex = attributes
        self.relationshipIndex = relationships
        let allRelationships = entities.lazy.flatMap(\.relationships)
        self.hasInverseRelationships = allRelationships.contains { $0.inverseName != nil }
        self.hasBoundedToManyRelationships = allRelationships.contains { $0.kind.isToMany && ($0.minCount > 0 || $0.maxCount > 0) }
    }

    /// The entity with this name, if the schema has it.
    public func entity(named name: String) -> EntityDescription? {
        entityIndex[name].map { entities[$0] }
    }

    /// The ordinal of `attribute` in `entity`, in constant time.
    public func attributeOrdinal(_ attribute: String, in entity: String) -> Int? {
        attributeIndex[entity]?[attribute]
    }

    /// The ordinal of `relationship` in `entity`, in constant time.
    public func relationshipOrdinal(_ relationship: String, in entity: String) -> Int? {
        relationshipIndex[entity]?[relationship]
    }

    /// The entity itself followed by all its descendants, depth first.
    public func entityAndDescendants(_ name: String) -> [String] {
        var result = [name]
        var i = 0
        while i < result.count {
            result.append(contentsOf: childrenIndex[result[i]] ?? [])
            i += 1
        }
        return result
    }

    /// Whether another entity names `name` as its parent.
    public func hasSubentities(_ name: String) -> Bool {
        childrenIndex[name].map { !$0.isEmpty } ?? false
    }

    /// Whether `entity` is `ancestor` or one of its descendants.
    public func entity(_ entity: String, isKindOf ancestor: String) -> Bool {
        var current: String? = entity
        while let name = current {
            if name == ancestor { return true }
            current = self.entity(named: name)?.parentName
        }
        return false
    }

    /// The unique constraints a record of the concrete `entity` must keep: those declared on the
    /// entity and on each of its ancestors, each with the entity that declared it (the scope of
    /// the constraint is that entity and all its descendants).
    public func uniqueConstraints(applyingTo entity: String) -> [(owner: String, attributes: [String])] {
        var result: [(owner: String, attributes: [String])] = []
        var current: String? = entity
        while let name = current, let description = self.entity(named: name) {
            for attributes in description.uniqueConstraints { result.append((name, attributes)) }
            current = description.parentName
        }
        return result
    }

    /// The topmost ancestor of `entity` (the entity itself when it has no parent).
    public func rootEntity(of entity: String) -> String {
        var name = entity
        while let parent = self.entity(named: name)?.parentName { name = parent }
        return name
    }

    /// Compares by version, hash and entities only (lookup tables are derived).
    public static func == (lhs: StoreSchema, rhs: StoreSchema) -> Bool {
        lhs.modelVersion == rhs.modelVersion && lhs.schemaHash == rhs.schemaHash && lhs.entities == rhs.entities
    }

    /// Hashes by version and hash.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(modelVersion)
        hasher.combine(schemaHash)
    }
}
