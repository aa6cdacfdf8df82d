import Foundation

/// A migration step with custom mappings for some entities; every entity it does not mention is
/// inferred as ``InferredSchemaMappingProvider`` would (same name: copied, only in the source:
/// deleted, only in the destination: inserted empty).
///
/// ```swift
/// CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [
///     .transformEntity(sourceEntity: "Person", destinationEntity: "Person") { source, createDestination in
///         let destination = createDestination()
///         destination["fullName"] = "\(source["firstName"] as! String) \(source["lastName"] as! String)"
///     },
///     .deleteEntity("Cache"),
/// ])
/// ```
public final class CustomSchemaMappingProvider: Hashable, SchemaMappingProvider, @unchecked Sendable {
    /// The version the step starts from.
    public let sourceVersion: ModelVersion
    /// The version the step ends at.
    public let destinationVersion: ModelVersion
    /// The custom entity mappings.
    public let entityMappings: Set<CustomMapping>

    /// CoreStore declares the transformer objects inside this class; both spellings name the
    /// same types here.
    public typealias UnsafeSourceObject = CoreStoreStorage.UnsafeSourceObject
    /// See ``UnsafeSourceObject``.
    public typealias UnsafeDestinationObject = CoreStoreStorage.UnsafeDestinationObject
    /// Whether the provider was made on the main actor, whose transformers (closures written
    /// there are isolated to it) are then called on the main queue.
    let transformersRunOnMainActor: Bool

    /// A provider for the step from `sourceVersion` to `destinationVersion`.
    ///
    /// `isolation` is where the provider (and, usually, its transformers) is written; leave the
    /// default. Migrations run on a background queue: transformers written in `@MainActor` code
    /// are called on the main queue, one object at a time, so that the runtime's isolation
    /// checks hold (declare mappings outside `@MainActor` code — for example as a static
    /// property of a model namespace — to run them in the background).
    public required init(
        from sourceVersion: ModelVersion, to destinationVersion: ModelVersion, entityMappings: Set<CustomMapping> = [],
        isolation: (any Actor)? = #isolation
    ) {
        self.sourceVersion = sourceVersion
        self.destinationVersion = destinationVersion
        self.entityMappings = entityMappings
        self.transformersRunOnMainActor = isolation.map { $0 === MainActor.shared } ?? false
    }

    /// What happens to one entity's records.
    public enum CustomMapping: Hashable {
        /// The source entity's records are dropped.
        case deleteEntity(String)
        /// The destination entity starts empty.
        case insertEntity(String)
        /// Every record is copied with inferred attribute and relationship mappings (the entity
        /// may be renamed).
        case copyEntity(sourceEntity: String, destinationEntity: String)
        /// Every record goes through `transformer`, which creates zero or more destination
        /// objects for it.
        case transformEntity(sourceEntity: String, destinationEntity: String, transformer: Transformer)

        /// Receives each source object and a function that creates a destination object (call it
        /// once per object to create; not at all to drop the source object).
        ///
        /// `@Sendable`: migrations run on a background queue, so a transformer written inside a
        /// `@MainActor` context (an app's `main.swift`, a view model) must not inherit that
        /// isolation — the runtime would stop the process when the migration calls it.
        public typealias Transformer = @Sendable (_ sourceObject: UnsafeSourceObject, _ createDestinationObject: () -> UnsafeDestinationObject) throws -> Void

        /// The transformer of ``copyEntity(sourceEntity:destinationEntity:)``: one destination
        /// object with every attribute inferred from the source object.
        public static func inferredTransformation(_ sourceObject: UnsafeSourceObject, _ createDestinationObject: () -> UnsafeDestinationObject) throws {
            createDestinationObject().applyInferredAttributes()
        }

        /// The source entity named, `nil` for ``insertEntity(_:)``.
        public var sourceEntity: String? {
            switch self {
            case .deleteEntity(let name): return name
            case .insertEntity: return nil
            case .copyEntity(let source, _), .transformEntity(let source, _, _): return source
            }
        }

        /// The destination entity named, `nil` for ``deleteEntity(_:)``.
        public var destinationEntity: String? {
            switch self {
            case .deleteEntity: return nil
            case .insertEntity(let name): return name
            case .copyEntity(_, let destination), .transformEntity(_, let destination, _): return destination
            }
        }

        /// Equal when of the same kind for the same entities (transformers are not compared).
        public static func == (lhs: CustomMapping, rhs: CustomMapping) -> Bool {
            lhs.kind == rhs.kind && lhs.sourceEntity == rhs.sourceEntity && lhs.destinationEntity == rhs.destinationEntity
        }

        /// Hashes the kind and the entity names.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(kind)
            hasher.combine(sourceEntity)
            hasher.combine(destinationEntity)
        }

        private var kind: Int {
            switch self {
            case .deleteEntity: return 0
            case .insertEntity: return 1
            case .copyEntity: return 2
            case .transformEntity: return 3
            }
        }
    }

    /// `transformer`, called on the main queue (directly when already there).
    private static func onMainQueue(_ transformer: @escaping CustomMapping.Transformer) -> CustomMapping.Transformer {
        return { source, createDestination in
            if Thread.isMainThread {
                try transformer(source, createDestination)
            } else {
                // The main queue runs it while this thread waits: nothing is used by two threads at once.
                try withoutActuallyEscaping(createDestination) { create in
                    let objects = TransformerArguments(source: source, create: create)
                    try DispatchQueue.main.sync { try transformer(objects.source, objects.create) }
                }
            }
        }
    }

    /// A transformer's arguments, handed to the main queue while the migration thread waits.
    private struct TransformerArguments: @unchecked Sendable {
        let source: UnsafeSourceObject
        let create: () -> UnsafeDestinationObject
    }

    /// Equal when for the same step with the same entity mappings.
    public static func == (lhs: CustomSchemaMappingProvider, rhs: CustomSchemaMappingProvider) -> Bool {
        lhs.sourceVersion == rhs.sourceVersion && lhs.destinationVersion == rhs.destinationVersion && lhs.entityMappings == rhs.entityMappings
    }

    /// Hashes the versions and entity mappings.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(sourceVersion)
        hasher.combine(destinationVersion)
        hasher.combine(entityMappings)
    }

    /// Handles exactly its own step.
    public func handles(sourceVersion: ModelVersion, destinationVersion: ModelVersion) -> Bool {
        sourceVersion == self.sourceVersion && destinationVersion == self.destinationVersion
    }

    /// The custom mappings, and inferred ones for the entities they do not mention; a
    /// `.heavyweight` step.
    public func schemaMapping(from source: StoreSchema, to destination: StoreSchema) throws -> SchemaMapping {
        var inference = MappingInference(source: source, destination: destination)
        var transformers: [String: CustomMapping.Transformer] = [:]
        for mapping in entityMappings {
            switch mapping {
            case .deleteEntity(let name):
                try inference.requireSource(name)
                try inference.drop(name)
            case .insertEntity(let name):
                try inference.requireDestination(name)
                try inference.insert(name)
            case .copyEntity(let from, let to):
                try inference.map(from, to: to)
            case .transformEntity(let from, let to, let transformer):
                try inference.map(from, to: to)
                transformers[from] = transformersRunOnMainActor ? Self.onMainQueue(transformer) : transformer
            }
        }
        return try inference.mapping(migrationType: .heavyweight(sourceVersion: source.modelVersion, destinationVersion: destination.modelVersion), transformers: transformers)
    }
}

/// The default mapping: inferred from the two schemas by names and renaming identifiers (see
/// `docs/MIGRATIONS.md` for the exact rules); a `.lightweight` step. Used for every step no
/// other provider handles.
public final class InferredSchemaMappingProvider: Hashable, SchemaMappingProvider {
    /// The inferred provider.
    public init() {}

    /// Handles every step.
    public func handles(sourceVersion: ModelVersion, destinationVersion: ModelVersion) -> Bool { true }

    /// The inferred mapping; throws ``MigrationError`` for a change it cannot infer without loss.
    public func schemaMapping(from source: StoreSchema, to destination: StoreSchema) throws -> SchemaMapping {
        try MappingInference(source: source, destination: destination)
            .mapping(migrationType: .lightweight(sourceVersion: source.modelVersion, destinationVersion: destination.modelVersion), transformers: [:])
    }

    /// All inferred providers are equal.
    public static func == (lhs: InferredSchemaMappingProvider, rhs: InferredSchemaMappingProvider) -> Bool { true }

    /// All inferred providers hash alike.
    public func hash(into hasher: inout Hasher) {}
}
