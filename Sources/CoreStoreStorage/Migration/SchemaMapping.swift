/// How one migration step turns the records of the source schema into records of the
/// destination schema: made by a ``SchemaMappingProvider``, run by ``SchemaMigrator``.
public struct SchemaMapping: Sendable {
    /// The schema the records are in.
    public let source: StoreSchema
    /// The schema they move to.
    public let destination: StoreSchema
    /// What `requiredMigrationsForStorage` reports for the step.
    public let migrationType: MigrationType
    /// One mapping per concrete source entity whose records move; records of the other source
    /// entities are dropped (and the relationships to them emptied).
    public let entityMappings: [EntityMapping]

    /// Creates a mapping.
    public init(source: StoreSchema, destination: StoreSchema, migrationType: MigrationType, entityMappings: [EntityMapping]) {
        self.source = source
        self.destination = destination
        self.migrationType = migrationType
        self.entityMappings = entityMappings
    }

    /// How the records of one concrete source entity become records of one destination entity.
    public struct EntityMapping: @unchecked Sendable {
        /// The concrete source entity.
        public let sourceEntity: String
        /// The concrete destination entity.
        public let destinationEntity: String
        /// Per destination attribute ordinal, where its value comes from (the inferred copy;
        /// a transformer starts from it too when it calls `inferredTransformation`).
        public let attributes: [LightweightMigrationStep.AttributeSource]
        /// Per destination relationship ordinal, the source relationship whose destinations it
        /// keeps (`nil`: it starts empty).
        public let relationships: [String?]
        /// The custom transformer, `nil` for the inferred copy.
        public let transformer: CustomSchemaMappingProvider.CustomMapping.Transformer?

        /// Creates an entity mapping.
        public init(
            sourceEntity: String, destinationEntity: String, attributes: [LightweightMigrationStep.AttributeSource],
            relationships: [String?], transformer: CustomSchemaMappingProvider.CustomMapping.Transformer?
        ) {
            self.sourceEntity = sourceEntity
            self.destinationEntity = destinationEntity
            self.attributes = attributes
            self.relationships = relationships
            self.transformer = transformer
        }
    }

    /// The step for an engine's native path, when the mapping changes attributes only (see
    /// ``LightweightMigrationStep``); `nil` otherwise.
    public var lightweightStep: LightweightMigrationStep? {
        guard case .lightweight = migrationType else { return nil }
        let kept = Set(entityMappings.map(\.sourceEntity))
        guard source.entities.count == destination.entities.count,
              source.entities.allSatisfy({ $0.isAbstract || kept.contains($0.name) }) else { return nil }
        var attributes: [String: [LightweightMigrationStep.AttributeSource]] = [:]
        for mapping in entityMappings {
            guard mapping.sourceEntity == mapping.destinationEntity, mapping.transformer == nil,
                  let from = source.entity(named: mapping.sourceEntity), let to = destination.entity(named: mapping.destinationEntity),
                  from.parentName == to.parentName, from.isAbstract == to.isAbstract,
                  from.relationships.map(Self.shape) == to.relationships.map(Self.shape),
                  mapping.relationships == to.relationships.map({ Optional($0.name) }) else { return nil }
            attributes[to.name] = mapping.attributes
        }
        for entity in destination.entities where entity.isAbstract {
            guard let from = source.entity(named: entity.name), from.isAbstract, from.parentName == entity.parentName,
                  from.relationships.map(Self.shape) == entity.relationships.map(Self.shape) else { return nil }
        }
        return LightweightMigrationStep(source: source, destination: destination, attributes: attributes)
    }

    private static func shape(_ relationship: RelationshipDescription) -> [String] {
        [relationship.name, relationship.kind.rawValue, relationship.destinationEntity, relationship.inverseName ?? ""]
    }
}
