import Foundation
import CoreStoreStorage

/// One model version declared in Swift: its version name, its entities and, optionally, the
/// configurations that split them across stores.
///
/// ```swift
/// let schema = CoreStoreSchema(
///     modelVersion: "V1",
///     entities: [
///         Entity<Animal>("Animal", isAbstract: true),
///         Entity<Dog>("Dog"),
///         Entity<Person>("Person"),
///     ],
///     versionLock: [ … ]   // logged for you the first time
/// )
/// ```
///
/// ## Canonical description
/// The version lock and stored schema hashes are SHA-256 digests of this text, one line each,
/// joined by `\n`:
/// ```
/// entity:<name>
/// parent:<parent entity name, empty if none>
/// abstract:<0|1>
/// attribute:<name>:<type>:<optional|required>          — own attributes, sorted by name
/// relationship:<name>:<kind>:<destination>:<inverse>:<delete rule>   — own, sorted by name
/// ```
/// `<type>` is an `AttributeType` raw value, `<kind>` a `RelationshipKind` raw value, an
/// absent inverse is empty. Default values, indexes and Swift class names are not part of it,
/// so renaming a class or changing a default keeps the lock.
public final class CoreStoreSchema: @unchecked Sendable, CustomDebugStringConvertible {
    /// The model version name.
    public let modelVersion: String
    /// The expected entity hashes, if declared.
    public let versionLock: VersionLock?
    let allEntities: [DynamicEntity]
    let configurations: [String: [DynamicEntity]]
    private let lock = NSLock()
    private var built: Result<RuntimeSchema, CoreStoreError>?

    /// Declares a model version whose entities all live in the default configuration.
    public convenience init(modelVersion: String, entities: [DynamicEntity], versionLock: VersionLock? = nil) {
        self.init(modelVersion: modelVersion, entities: entities, configurations: [:], versionLock: versionLock)
    }

    /// Declares a model version with named configurations; a store added with configuration
    /// `"X"` holds the entities listed under `"X"`, a store without configuration holds all.
    public convenience init(modelVersion: String, entitiesByConfiguration: [String: [DynamicEntity]], versionLock: VersionLock? = nil) {
        var all: [DynamicEntity] = []
        for name in entitiesByConfiguration.keys.sorted() {
            for entity in entitiesByConfiguration[name] ?? [] where !all.contains(entity) { all.append(entity) }
        }
        self.init(modelVersion: modelVersion, entities: all, configurations: entitiesByConfiguration, versionLock: versionLock)
    }

    private init(modelVersion: String, entities: [DynamicEntity], configurations: [String: [DynamicEntity]], versionLock: VersionLock?) {
        self.modelVersion = modelVersion
        self.allEntities = entities
        self.configurations = configurations
        self.versionLock = versionLock
    }

    /// The version lock computed from the entities as declared now.
    public func computedVersionLock() throws -> VersionLock {
        try runtime().versionLock
    }

    /// The schema a store of `configuration` (`nil`: every entity) is written with, as the JSON
    /// stores record in their metadata: what `corestore migrate --schema FILE` takes, to forecast
    /// or run the migration of a store file to this version from the command line.
    ///
    /// ```swift
    /// try V2.schema.storeSchemaJSON().write(toFile: "v2.json", atomically: true, encoding: .utf8)
    /// ```
    public func storeSchemaJSON(configuration: String? = nil) throws(CoreStoreError) -> String {
        StoredMetadata.schemaJSON(try runtime().storeSchema(configuration: configuration))
    }

    /// The canonical description of one entity (see the type's documentation), or `nil` if the
    /// schema has no such entity or is invalid.
    public func canonicalDescription(ofEntity name: String) -> String? {
        (try? runtime())?.entitiesByName[name]?.canonicalDescription
    }

    /// The validated runtime form of this schema, built once.
    func runtime() throws(CoreStoreError) -> RuntimeSchema {
        lock.lock()
        defer { lock.unlock() }
        if let built { return try built.get() }
        let result: Result<RuntimeSchema, CoreStoreError>
        do {
            result = .success(try SchemaBuilder(schema: self).build())
        } catch {
            result = .failure(CoreStoreError.wrap(error))
        }
        var final = result
        if case .success(let runtime) = result {
            if let versionLock {
                if versionLock != runtime.versionLock {
                    let error = CoreStoreError.mismatchedVersionLock(modelVersion: modelVersion, expected: versionLock.description, actual: runtime.versionLock.description)
                    Log.assert(false, error.description)
                    final = .failure(error)
                }
            } else {
                Log.log(.notice, "The schema for model version '\(modelVersion)' has no VersionLock. Add this to its CoreStoreSchema to detect accidental model changes:\nversionLock: \(runtime.versionLock)")
            }
        }
        built = final
        return try final.get()
    }

    /// The version, the entities and their configurations.
    public var debugDescription: String {
        var lines = ["CoreStoreSchema(modelVersion: \"\(modelVersion)\")"]
        for entity in allEntities {
            lines.append("  \(entity.entityName)\(entity.isAbstract ? " (abstract)" : ""): \(entity.type)")
        }
        return lines.joined(separator: "\n")
    }
}
