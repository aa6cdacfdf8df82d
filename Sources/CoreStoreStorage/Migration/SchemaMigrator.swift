/// Runs one migration step through the storage contract, on any ``MigratableStorage``: the
/// engine's native lightweight path when it has one, otherwise a copy of every record in batches
/// (memory bounded by the batch, plus the keys of objects a transformer dropped).
///
/// ```swift
/// let mapping = try InferredSchemaMappingProvider().schemaMapping(from: v1, to: v2)
/// try SchemaMigrator(mapping: mapping).migrate(store) { completed, total in … }
/// ```
/// All or nothing: on any error the step is abandoned and the store keeps the source version.
public struct SchemaMigrator {
    /// The step to run.
    public let mapping: SchemaMapping
    /// How many records are read, mapped and written at a time.
    public var batchSize: Int

    /// A migrator for `mapping`.
    public init(mapping: SchemaMapping, batchSize: Int = 1_000) {
        self.mapping = mapping
        self.batchSize = max(1, batchSize)
    }

    /// Migrates the closed `storage` from the mapping's source to its destination and leaves it
    /// closed. `progress` receives the number of source records done and their total.
    public func migrate(_ storage: any MigratableStorage, progress: (_ completed: Int64, _ total: Int64) -> Void = { _, _ in }) throws {
        try migrate(try storage.beginMigration(from: mapping.source, to: mapping.destination), progress: progress)
    }

    /// Moves the records of the begun `migration` and finishes it with the destination's
    /// version, hash and recorded schema; abandons it on any error.
    func migrate(_ migration: any StorageMigration, progress: (_ completed: Int64, _ total: Int64) -> Void) throws {
        do {
            let counters = try run(migration, progress: progress)
            var metadata = migration.sourceMetadata
            metadata.modelVersion = mapping.destination.modelVersion
            metadata.schemaHash = mapping.destination.schemaHash
            metadata.recordSchema(mapping.destination)
            // The source model's lock no longer applies; a `DataStack` records the new one.
            metadata.userInfo[StoredMetadata.versionLockKey] = nil
            try migration.finish(metadata: metadata, counters: counters)
        } catch {
            migration.abandon()
            throw error
        }
    }

    /// Moves the records into `migration`'s destination and returns the counters to finish with.
    func run(_ migration: any StorageMigration, progress: (Int64, Int64) -> Void) throws -> CommitCounters {
        let total = try migration.readSource { reader in
            try mapping.entityMappings.reduce(Int64(0)) { sum, entity in
                sum + Int64(try reader.count(FetchRequest(entity: entity.sourceEntity, includesSubentities: false)))
            }
        }
        progress(0, total)
        let source = migration.sourceCounters
        if let step = mapping.lightweightStep, try migration.migrateNatively(step) {
            progress(total, total)
            return CommitCounters(nextKey: source.nextKey, sequence: source.sequence + 1)
        }
        var copy = RecordCopy(mapping: mapping, migration: migration, nextKey: source.nextKey)
        var completed: Int64 = 0
        // Transformed entities first: the objects their transformers drop are known before the
        // records that point at them are written.
        let ordered = mapping.entityMappings.filter { $0.transformer != nil } + mapping.entityMappings.filter { $0.transformer == nil }
        for entity in ordered {
            let plan = try EntityPlan(entity, mapping: mapping)
            try migration.scanSource(entity: entity.sourceEntity, batchSize: batchSize) { records in
                let written = try copy.map(records, plan: plan)
                try copy.validate(written)
                if !written.isEmpty { try migration.writeDestination(MergedChanges(inserts: written)) }
                completed += Int64(records.count)
                progress(completed, total)
            }
            copy.finished(entity.sourceEntity)
        }
        try copy.removeDanglingReferences(batchSize: batchSize)
        try copy.applyRelationshipAssignments(batchSize: batchSize)
        return CommitCounters(nextKey: copy.nextKey, sequence: source.sequence + 1)
    }
}

/// One entity mapping resolved against the schemas: ordinals instead of names.
struct EntityPlan {
    let mapping: SchemaMapping.EntityMapping
    let sourceEntity: EntityDescription
    let destinationEntity: EntityDescription
    /// Per destination attribute: a source ordinal (and the value replacing a `null`), or a constant.
    let attributes: [(ordinal: Int?, value: Value?)]
    /// Per destination relationship: the source ordinal whose destinations it keeps.
    let relationships: [Int?]
    /// Per destination attribute, the source attribute it is inferred from.
    let sourceAttributes: [AttributeDescription?]
    /// The values a new destination object starts with.
    let defaultValues: [Value]
    /// The type of each destination attribute, by ordinal.
    let destinationTypes: [AttributeType]

    init(_ mapping: SchemaMapping.EntityMapping, mapping schema: SchemaMapping) throws {
        guard let from = schema.source.entity(named: mapping.sourceEntity),
              let to = schema.destination.entity(named: mapping.destinationEntity) else {
            throw MigrationError(sourceVersion: schema.source.modelVersion, destinationVersion: schema.destination.modelVersion,
                                 reason: "the mapping names an entity the schemas do not have ('\(mapping.sourceEntity)' → '\(mapping.destinationEntity)')")
        }
        self.mapping = mapping
        sourceEntity = from
        destinationEntity = to
        attributes = mapping.attributes.map { source in
            switch source {
            case .attribute(let name, let replacement): return (from.attributeOrdinal(name), replacement)
            case .constant(let value): return (nil, value)
            }
        }
        relationships = mapping.relationships.map { name in name.flatMap { from.relationshipOrdinal($0) } }
        defaultValues = to.attributes.map(\.defaultValue)
        destinationTypes = to.attributes.map(\.type)
        sourceAttributes = mapping.attributes.map { source in
            if case .attribute(let name, _) = source { return from.attributeOrdinal(name).map { from.attributes[$0] } }
            return nil
        }
    }

    /// The ordinal of the destination attribute `name`.
    func destinationOrdinal(ofAttribute name: String) -> Int? {
        destinationEntity.attributeOrdinal(name)
    }

    /// The ordinal of the destination relationship `name`.
    func destinationOrdinal(ofRelationship name: String) -> Int? {
        destinationEntity.relationshipOrdinal(name)
    }

    /// The inferred attribute values of the destination record of `record`.
    func inferredAttributes(of record: Record) -> [Value] {
        attributes.map { source in
            guard let ordinal = source.ordinal else { return source.value ?? .null }
            let value = record.attributes[ordinal]
            if value.isNull, let replacement = source.value { return replacement }
            return value
        }
    }
}
