/// All model versions an application has shipped, and which one is current.
///
/// ```swift
/// let history = SchemaHistory(schemaV1, schemaV2, migrationChain: ["V1", "V2"])
/// let dataStack = DataStack(schemaHistory: history)
/// ```
/// The current version is `exactCurrentModelVersion` when given, else the leaf of the migration
/// chain, else the last schema given.
public final class SchemaHistory: ExpressibleByArrayLiteral, @unchecked Sendable {
    /// Every declared model version.
    public let schemas: [CoreStoreSchema]
    /// The order in which versions follow each other.
    public let migrationChain: MigrationChain
    /// The version new stores are created with and existing stores migrate to.
    public let currentModelVersion: ModelVersion

    /// Creates a history from model versions, a migration chain and, optionally, the current version.
    public convenience init(_ schema: CoreStoreSchema, _ otherSchema: CoreStoreSchema..., migrationChain: MigrationChain = nil, exactCurrentModelVersion: String? = nil) {
        self.init(allSchema: [schema] + otherSchema, migrationChain: migrationChain, exactCurrentModelVersion: exactCurrentModelVersion)
    }

    /// Creates a history from model versions, a migration chain and, optionally, the current version.
    public required init(allSchema: [CoreStoreSchema], migrationChain: MigrationChain = nil, exactCurrentModelVersion: String? = nil) {
        self.schemas = allSchema
        self.migrationChain = migrationChain
        self.currentModelVersion = exactCurrentModelVersion ?? migrationChain.leafVersion ?? allSchema.last?.modelVersion ?? ""
    }

    /// A history of these versions without a migration chain; the last is current.
    public convenience init(arrayLiteral elements: CoreStoreSchema...) {
        self.init(allSchema: elements)
    }

    /// The schema of the current version (the last schema when no schema has that version).
    public var currentSchema: CoreStoreSchema {
        schema(for: currentModelVersion) ?? schemas.last ?? CoreStoreSchema(modelVersion: currentModelVersion, entities: [])
    }

    /// The schema declared for `modelVersion`, if any.
    public func schema(for modelVersion: ModelVersion) -> CoreStoreSchema? {
        schemas.last { $0.modelVersion == modelVersion }
    }

    /// Why this history cannot be used, `nil` when it can: an invalid chain, two schemas of one version, or a current version without a schema.
    var validationError: String? {
        if let error = migrationChain.validationError { return error }
        var seen: Set<String> = []
        for schema in schemas where !seen.insert(schema.modelVersion).inserted {
            return "Two schemas declare model version '\(schema.modelVersion)'."
        }
        if !seen.contains(currentModelVersion) {
            return "No schema declares the current model version '\(currentModelVersion)'."
        }
        return nil
    }
}
