/// Infers how records move between two schemas: which entity each source entity becomes and
/// where every destination attribute and relationship gets its value. The rules are those of
/// `docs/MIGRATIONS.md`; anything that would lose data without saying so is a ``MigrationError``.
struct MappingInference {
    let source: StoreSchema
    let destination: StoreSchema
    /// Source entity → destination entity (`nil`: its records are dropped).
    private var entityMap: [String: String?] = [:]
    /// Destination entities that start empty whatever the source holds.
    private var inserted: Set<String> = []

    init(source: StoreSchema, destination: StoreSchema) {
        self.source = source
        self.destination = destination
    }

    private func error(_ reason: String) -> MigrationError {
        MigrationError(sourceVersion: source.modelVersion, destinationVersion: destination.modelVersion, reason: reason)
    }

    func requireSource(_ name: String) throws {
        guard source.entity(named: name) != nil else { throw error("the source model has no entity '\(name)'") }
    }

    func requireDestination(_ name: String) throws {
        guard destination.entity(named: name) != nil else { throw error("the destination model has no entity '\(name)'") }
    }

    mutating func drop(_ name: String) throws {
        guard entityMap[name] == nil else { throw error("entity '\(name)' is mapped twice") }
        entityMap[name] = .some(nil)
    }

    mutating func insert(_ name: String) throws {
        inserted.insert(name)
    }

    mutating func map(_ from: String, to: String) throws {
        try requireSource(from)
        try requireDestination(to)
        guard entityMap[from] == nil else { throw error("entity '\(from)' is mapped twice") }
        entityMap[from] = .some(to)
    }

    /// The destination entity of the source entity `name`: its explicit mapping, else the
    /// destination entity of the same name (unless that one is inserted empty).
    func target(of name: String) -> String? {
        if let explicit = entityMap[name] { return explicit }
        guard destination.entity(named: name) != nil, !inserted.contains(name) else { return nil }
        return name
    }

    func mapping(migrationType: MigrationType, transformers: [String: CustomSchemaMappingProvider.CustomMapping.Transformer]) throws -> SchemaMapping {
        var mappings: [SchemaMapping.EntityMapping] = []
        for entity in source.entities where !entity.isAbstract {
            guard let targetName = target(of: entity.name) else { continue }
            guard let target = destination.entity(named: targetName), !target.isAbstract else {
                throw error("the records of '\(entity.name)' would become records of '\(targetName)', which is abstract")
            }
            let transformed = transformers[entity.name] != nil
            let attributes = try target.attributes.map { try attributeSource(of: $0, in: target, from: entity, transformed: transformed) }
            let relationships = try target.relationships.map { try relationshipSource(of: $0, in: target, from: entity) }
            mappings.append(SchemaMapping.EntityMapping(
                sourceEntity: entity.name, destinationEntity: target.name, attributes: attributes,
                relationships: relationships, transformer: transformers[entity.name]
            ))
        }
        return SchemaMapping(source: source, destination: destination, migrationType: migrationType, entityMappings: mappings)
    }

    /// The source attribute of `attribute`: the one named by its renaming identifier, else the
    /// one of the same name.
    static func sourceAttribute(of attribute: AttributeDescription, in entity: EntityDescription) -> AttributeDescription? {
        if let old = attribute.renamingIdentifier, let ordinal = entity.attributeOrdinal(old) { return entity.attributes[ordinal] }
        return entity.attributeOrdinal(attribute.name).map { entity.attributes[$0] }
    }

    /// Where `attribute` gets its value. For an entity whose records go through a transformer
    /// (`transformed`), what cannot be inferred is left to the transformer instead of refused: a
    /// changed type or a new non-optional attribute without default has no source attribute
    /// (the destination object starts with the default value), an optional attribute that
    /// becomes non-optional without default copies its `nil`s; a `nil` the transformer leaves
    /// where none may be fails the step when the record is written.
    private func attributeSource(of attribute: AttributeDescription, in target: EntityDescription, from entity: EntityDescription, transformed: Bool) throws -> LightweightMigrationStep.AttributeSource {
        let name = "'\(target.name).\(attribute.name)'"
        guard let old = Self.sourceAttribute(of: attribute, in: entity) else {
            guard attribute.isOptional || !attribute.defaultValue.isNull || transformed else {
                throw error("the new attribute \(name) is not optional and has no default value")
            }
            return .constant(attribute.defaultValue)
        }
        guard old.type == attribute.type || (old.type == .url && attribute.type == .string) else {
            guard transformed else {
                throw error("attribute \(name) changes type from \(old.type.rawValue) to \(attribute.type.rawValue); map it with a CustomSchemaMappingProvider")
            }
            return .constant(attribute.defaultValue)
        }
        if old.isOptional && !attribute.isOptional {
            guard !attribute.defaultValue.isNull || transformed else {
                throw error("attribute \(name) becomes non-optional without a default value for the records that hold none")
            }
            return .attribute(old.name, nullReplacement: attribute.defaultValue.isNull ? nil : attribute.defaultValue)
        }
        return .attribute(old.name, nullReplacement: nil)
    }

    /// The source relationship of `relationship` in `entity`, by renaming identifier or name.
    static func sourceRelationship(of relationship: RelationshipDescription, in entity: EntityDescription) -> RelationshipDescription? {
        if let old = relationship.renamingIdentifier, let ordinal = entity.relationshipOrdinal(old) { return entity.relationships[ordinal] }
        return entity.relationshipOrdinal(relationship.name).map { entity.relationships[$0] }
    }

    private func relationshipSource(of relationship: RelationshipDescription, in owner: EntityDescription, from entity: EntityDescription) throws -> String? {
        let name = "'\(owner.name).\(relationship.name)'"
        let inverse = relationship.inverseName.flatMap { inverseName in
            destination.entity(named: relationship.destinationEntity).flatMap { owner in owner.relationshipOrdinal(inverseName).map { owner.relationships[$0] } }
        }
        guard let old = Self.sourceRelationship(of: relationship, in: entity) else {
            guard relationship.minCount == 0 else {
                throw error("the new relationship \(name) needs at least \(relationship.minCount) destinations")
            }
            if let inverse, let oldOwner = source.entity(named: relationship.destinationEntity) ?? sourceEntity(mappedTo: relationship.destinationEntity),
               Self.sourceRelationship(of: inverse, in: oldOwner) != nil {
                throw error("relationship \(name) is new but its inverse '\(relationship.destinationEntity).\(inverse.name)' keeps its destinations; map it with a CustomSchemaMappingProvider")
            }
            return nil
        }
        if old.kind.isToMany && !relationship.kind.isToMany {
            throw error("relationship \(name) changes from to-many to to-one; map it with a CustomSchemaMappingProvider")
        }
        for concrete in source.entityAndDescendants(old.destinationEntity) {
            guard let mapped = target(of: concrete), !(source.entity(named: concrete)?.isAbstract ?? true) else { continue }
            guard destination.entity(mapped, isKindOf: relationship.destinationEntity) else {
                throw error("relationship \(name) would point at '\(mapped)' records, which are not '\(relationship.destinationEntity)'")
            }
        }
        switch (old.inverseName, inverse) {
        case (nil, nil), (.some, nil):
            break
        case (nil, .some(let inverse)):
            throw error("relationship \(name) gains the inverse '\(relationship.destinationEntity).\(inverse.name)'; map it with a CustomSchemaMappingProvider")
        case (.some(let oldInverse), .some(let inverse)):
            let inverseSource = inverse.renamingIdentifier.flatMap { renamed in
                source.entity(named: old.destinationEntity)?.relationshipOrdinal(renamed) != nil ? renamed : nil
            } ?? inverse.name
            guard inverseSource == oldInverse else {
                throw error("relationship \(name) changes its inverse from '\(oldInverse)' to '\(inverse.name)'; map it with a CustomSchemaMappingProvider")
            }
        }
        return old.name
    }

    private func sourceEntity(mappedTo name: String) -> EntityDescription? {
        source.entities.first { target(of: $0.name) == name }
    }
}
