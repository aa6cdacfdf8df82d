/// All model versions an application has shipped, and which one is current.
///
/// ```swift
/// let history = SchemaHistory(schemaV1, schemaV2, migrationChain: ["V1", "V2"])
/// let dataStack = DataStack(schemaHistory: history)
/// ```
/// The current version is the last of the migration chain, or the last schema given when there
/// is no chain.
public final class SchemaHistory: @unchecked Sendable {
    /// Every declared model version.
    public let schemas: [CoreStoreSchema]
    /// The order in which versions follow each other.
    public let migrationChain: MigrationChain
    /// The version new stores are created with and existing stores must match.
    public let currentModelVersion: String

    /// Creates a history from model versions and an optional migration chain.
    public convenience init(_ schema: CoreStoreSchema, _ otherSchemas: CoreStoreSchema..., migrationChain: MigrationChain = nil) {
        self.init(schemas: [schema] + otherSchemas, migrationChain: migrationChain)
    }

    init(schemas: [CoreStoreSchema], migrationChain: MigrationChain) {
        self.schemas = schemas
        self.migrationChain = migrationChain
        self.currentModelVersion = migrationChain.leafVersion ?? schemas.last?.modelVersion ?? ""
    }

    /// The schema of the current version (the last schema when the chain names an unknown one).
    public var currentSchema: CoreStoreSchema {
        schemas.last { $0.modelVersion == currentModelVersion } ?? schemas.last ?? CoreStoreSchema(modelVersion: currentModelVersion, entities: [])
    }
}

/// The order of model versions for progressive migrations: a list (`["V1", "V2", "V3"]`), a map
/// of version to next version (`["V1": "V3", "V2": "V3"]`), a single version, or `nil`.
public struct MigrationChain: ExpressibleByNilLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, Sendable, Hashable {
    /// The next version of each version.
    public let nextVersions: [String: String]
    /// Every version the chain mentions.
    public let versions: Set<String>
    /// The version at the end of every path, when there is exactly one.
    public let leafVersion: String?

    /// No chain: the last declared schema is current.
    public init(nilLiteral: ()) {
        self.init(pairs: [], versions: [])
    }

    /// A single version.
    public init(stringLiteral value: String) {
        self.init(pairs: [], versions: [value])
    }

    /// Versions in order.
    public init(arrayLiteral elements: String...) {
        self.init(pairs: zip(elements, elements.dropFirst()).map { ($0, $1) }, versions: Set(elements))
    }

    /// Version → next version.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(pairs: elements, versions: Set(elements.flatMap { [$0.0, $0.1] }))
    }

    private init(pairs: [(String, String)], versions: Set<String>) {
        var next: [String: String] = [:]
        for (from, to) in pairs { next[from] = to }
        self.nextVersions = next
        self.versions = versions
        let leaves = versions.filter { next[$0] == nil }
        self.leafVersion = leaves.count == 1 ? leaves.first : nil
    }
}
