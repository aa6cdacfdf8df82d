/// A model version's name (`"V1"`), as `CoreStoreSchema.modelVersion` spells it.
public typealias ModelVersion = String

/// Decides how a migration step maps the records of one model version to the next.
///
/// Stores take a list of providers (`SQLiteStore(fileURL:migrationMappingProviders:)`); for each
/// step of a progressive migration the first provider that ``handles(sourceVersion:destinationVersion:)``
/// it is used, and ``InferredSchemaMappingProvider`` when none does.
public protocol SchemaMappingProvider: Sendable {
    /// Whether this provider maps the step from `sourceVersion` to `destinationVersion`.
    func handles(sourceVersion: ModelVersion, destinationVersion: ModelVersion) -> Bool

    /// The mapping of the step from `source` to `destination`. Throws
    /// ``MigrationError`` when it cannot map every record without losing data.
    func schemaMapping(from source: StoreSchema, to destination: StoreSchema) throws -> SchemaMapping
}

/// The kind of a migration step, as forecast by `DataStack.requiredMigrationsForStorage(_:)`.
public enum MigrationType: Hashable, Sendable {
    /// No migration: the store is at `version`.
    case none(version: ModelVersion)
    /// A step whose mapping is inferred from the two schemas.
    case lightweight(sourceVersion: ModelVersion, destinationVersion: ModelVersion)
    /// A step with a custom mapping (`CustomSchemaMappingProvider`).
    case heavyweight(sourceVersion: ModelVersion, destinationVersion: ModelVersion)

    /// The version the step starts from.
    public var sourceVersion: ModelVersion {
        switch self {
        case .none(let version): return version
        case .lightweight(let source, _), .heavyweight(let source, _): return source
        }
    }

    /// The version the step ends at.
    public var destinationVersion: ModelVersion {
        switch self {
        case .none(let version): return version
        case .lightweight(_, let destination), .heavyweight(_, let destination): return destination
        }
    }

    /// Whether the step is `.lightweight`.
    public var isLightweightMigration: Bool {
        if case .lightweight = self { return true }
        return false
    }

    /// Whether the step is `.heavyweight`.
    public var isHeavyweightMigration: Bool {
        if case .heavyweight = self { return true }
        return false
    }

    /// Whether the step changes anything (not `.none`).
    public var hasMigration: Bool {
        if case .none = self { return false }
        return true
    }
}
