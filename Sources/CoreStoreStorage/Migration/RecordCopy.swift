/// The state of one copied migration step: where each source object went, which ones a
/// transformer dropped, and which written records still need their relationships finished.
struct RecordCopy {
    let mapping: SchemaMapping
    let migration: any StorageMigration
    /// The key the next extra destination object receives.
    private(set) var nextKey: Int64
    /// Source entity → destination entity, for mapping relationship destinations.
    private let targets: [String: String]
    /// Source entities whose records go through a transformer.
    private let transformed: Set<String>
    /// Source entities whose records are all written.
    private var done: Set<String> = []
    /// Keys of source objects a transformer created nothing for.
    private var dropped: Set<Int64> = []
    /// Destination records written while a destination of theirs might still be dropped.
    private var unresolved: [RecordID] = []
    /// Relationships a transformer assigned explicitly: applied last, with their inverses.
    private var assignments: [(id: RecordID, ordinal: Int, targets: [UnsafeDestinationObject.RelationshipTarget])] = []
    private let validator: RecordValidator
    private let shapes: [String: Shape]

    init(mapping: SchemaMapping, migration: any StorageMigration, nextKey: Int64) {
        self.mapping = mapping
        self.migration = migration
        self.nextKey = nextKey
        var targets: [String: String] = [:]
        for entity in mapping.entityMappings { targets[entity.sourceEntity] = entity.destinationEntity }
        self.targets = targets
        self.transformed = Set(mapping.entityMappings.filter { $0.transformer != nil }.map(\.sourceEntity))
        self.validator = RecordValidator(schema: mapping.destination)
        var shapes: [String: Shape] = [:]
        for entity in mapping.destination.entities { shapes[entity.name] = Shape(entity) }
        self.shapes = shapes
    }

    private func failure(_ reason: String) -> MigrationError {
        MigrationError(sourceVersion: mapping.source.modelVersion, destinationVersion: mapping.destination.modelVersion, reason: reason)
    }

    mutating func finished(_ sourceEntity: String) {
        done.insert(sourceEntity)
    }

    /// The destination records of a batch of source records.
    mutating func map(_ records: [Record], plan: EntityPlan) throws -> [Record] {
        var written: [Record] = []
        written.reserveCapacity(records.count)
        let loader = sourceLoader()
        for record in records {
            guard let transformer = plan.mapping.transformer else {
                let (relationships, unresolved) = mapRelationships(of: record, plan: plan)
                let id = RecordID(entity: plan.destinationEntity.name, key: record.id.key)
                if unresolved { self.unresolved.append(id) }
                written.append(Record(id: id, attributes: plan.inferredAttributes(of: record), relationships: relationships))
                continue
            }
            let source = UnsafeSourceObject(record: record, entity: plan.sourceEntity, schema: mapping.source, load: loader)
            var created: [UnsafeDestinationObject] = []
            var key = nextKey
            do {
                try transformer(source) {
                    let objectKey: Int64
                    if created.isEmpty {
                        objectKey = record.id.key
                    } else {
                        objectKey = key
                        key += 1
                    }
                    let object = UnsafeDestinationObject(recordID: RecordID(entity: plan.destinationEntity.name, key: objectKey), source: record, plan: plan)
                    created.append(object)
                    return object
                }
            } catch {
                throw TransformerError(sourceVersion: mapping.source.modelVersion, destinationVersion: mapping.destination.modelVersion, record: record.id, underlying: error)
            }
            nextKey = key
            if created.isEmpty { dropped.insert(record.id.key) }
            for (index, object) in created.enumerated() {
                if let message = object.assignmentError { throw failure("the transformer of '\(plan.sourceEntity.name)' for \(record.id): \(message)") }
                var relationships = Array(repeating: [RecordID](), count: plan.destinationEntity.relationships.count)
                if index == 0 {
                    let (mapped, unresolved) = mapRelationships(of: record, plan: plan)
                    relationships = mapped
                    if unresolved { self.unresolved.append(object.recordID) }
                }
                for (ordinal, targets) in object.relationshipOverrides.sorted(by: { $0.key < $1.key }) {
                    assignments.append((object.recordID, ordinal, targets))
                }
                written.append(Record(id: object.recordID, attributes: object.attributes, relationships: relationships))
            }
        }
        return written
    }

    /// The destinations a record keeps, and whether one of them may still be dropped.
    private func mapRelationships(of record: Record, plan: EntityPlan) -> ([[RecordID]], Bool) {
        var unresolved = false
        let relationships = plan.relationships.map { ordinal -> [RecordID] in
            guard let ordinal else { return [] }
            return record.relationships[ordinal].compactMap { id in
                guard let target = targets[id.entity], !dropped.contains(id.key) else { return nil }
                if transformed.contains(id.entity) && !done.contains(id.entity) { unresolved = true }
                return RecordID(entity: target, key: id.key)
            }
        }
        return (relationships, unresolved)
    }

    private func sourceLoader() -> (RecordID) throws -> UnsafeSourceObject? {
        let migration = migration
        let schema = mapping.source
        func load(_ id: RecordID) throws -> UnsafeSourceObject? {
            guard let record = try migration.readSource({ try $0.records([id]) }).first ?? nil,
                  let entity = schema.entity(named: record.id.entity) else { return nil }
            return UnsafeSourceObject(record: record, entity: entity, schema: schema, load: load)
        }
        return load
    }

    /// Checks records against the destination schema before they are written.
    func validate(_ records: [Record]) throws {
        for record in records {
            try validator.validateInsert(record)
            guard let shape = shapes[record.id.entity] else { continue }
            for ordinal in record.attributes.indices {
                let value = record.attributes[ordinal]
                if value.isNull {
                    guard shape.isOptional[ordinal] else {
                        throw failure("\(record.id) would have no value for the non-optional attribute '\(record.id.entity).\(shape.attributeNames[ordinal])'")
                    }
                } else if !Self.value(value, fits: shape.types[ordinal]) {
                    throw failure("\(record.id) would hold \(value) in '\(record.id.entity).\(shape.attributeNames[ordinal])', which is \(shape.types[ordinal].rawValue)")
                }
            }
            for ordinal in shape.toOne where record.relationships[ordinal].count > 1 {
                throw failure("\(record.id) would have \(record.relationships[ordinal].count) destinations in a to-one relationship of '\(record.id.entity)'")
            }
        }
    }

    /// What a destination record is checked against, per entity, computed once.
    struct Shape {
        let attributeNames: [String]
        let isOptional: [Bool]
        let types: [AttributeType]
        /// Ordinals of the to-one relationships.
        let toOne: [Int]

        init(_ entity: EntityDescription) {
            attributeNames = entity.attributes.map(\.name)
            isOptional = entity.attributes.map(\.isOptional)
            types = entity.attributes.map(\.type)
            toOne = entity.relationships.indices.filter { entity.relationships[$0].kind == .toOne }
        }
    }

    private static func value(_ value: Value, fits type: AttributeType) -> Bool {
        switch (type, value) {
        case (.bool, .bool), (.integer, .int), (.integer, .decimal), (.double, .double), (.decimal, .decimal),
             (.string, .string), (.url, .string), (.bytes, .bytes), (.date, .date), (.uuid, .uuid): return true
        default: return false
        }
    }

    /// Removes, from the records written while it was not known yet, every destination whose
    /// source object a transformer dropped.
    mutating func removeDanglingReferences(batchSize: Int) throws {
        defer { unresolved = [] }
        guard !dropped.isEmpty else { return }
        var start = 0
        while start < unresolved.count {
            let ids = Array(unresolved[start..<min(start + batchSize, unresolved.count)])
            start += ids.count
            let stored = try migration.readDestination { try $0.records(ids) }
            var updates: [RecordReplacement] = []
            for case let old? in stored {
                var new = old
                var changed: Set<String> = []
                let entity = mapping.destination.entity(named: old.id.entity)
                for ordinal in new.relationships.indices {
                    let kept = new.relationships[ordinal].filter { !dropped.contains($0.key) }
                    if kept.count != new.relationships[ordinal].count {
                        new.relationships[ordinal] = kept
                        changed.insert(entity?.relationships[ordinal].name ?? "")
                    }
                }
                if !changed.isEmpty { updates.append(RecordReplacement(old: old, new: new, changedKeys: changed)) }
            }
            if !updates.isEmpty { try migration.writeDestination(MergedChanges(updates: updates)) }
        }
    }

    /// Applies the relationships transformers assigned, keeping inverses consistent through the
    /// same merge a commit uses.
    mutating func applyRelationshipAssignments(batchSize: Int) throws {
        defer { assignments = [] }
        var start = 0
        while start < assignments.count {
            let slice = assignments[start..<min(start + batchSize, assignments.count)]
            start += slice.count
            var byRecord: [RecordID: [(Int, [RecordID])]] = [:]
            var order: [RecordID] = []
            for assignment in slice {
                let destinations = assignment.targets.compactMap { target -> RecordID? in
                    switch target {
                    case .destination(let id): return id
                    case .source(let id):
                        guard let entity = targets[id.entity], !dropped.contains(id.key) else { return nil }
                        return RecordID(entity: entity, key: id.key)
                    }
                }
                if byRecord[assignment.id] == nil { order.append(assignment.id) }
                byRecord[assignment.id, default: []].append((assignment.ordinal, destinations))
            }
            let stored = try migration.readDestination { try $0.records(order) }
            var updates: [RecordUpdate] = []
            for case let base? in stored {
                guard let entity = mapping.destination.entity(named: base.id.entity) else { continue }
                var record = base
                var keys: Set<String> = []
                for (ordinal, destinations) in byRecord[base.id] ?? [] {
                    record.relationships[ordinal] = destinations
                    keys.insert(entity.relationships[ordinal].name)
                }
                updates.append(RecordUpdate(record: record, changedKeys: keys, base: base))
            }
            let migration = migration
            let merged: MergedChanges
            do {
                merged = try ChangeMerger.merge(ChangeSet(updates: updates), schema: mapping.destination, basesAreStored: true) { ids in
                    try migration.readDestination { try $0.records(ids) }
                }
            } catch let error as StorageError {
                throw failure("a relationship assigned by a transformer cannot be kept: \(error)")
            }
            try validate(merged.updates.map(\.new))
            if !merged.isEmpty { try migration.writeDestination(merged) }
        }
    }
}

/// A migration transformer threw: the step was abandoned and the store kept its version.
public struct TransformerError: Error, CustomStringConvertible {
    /// The version the step starts from.
    public let sourceVersion: ModelVersion
    /// The version the step ends at.
    public let destinationVersion: ModelVersion
    /// The source record being transformed.
    public let record: RecordID
    /// What the transformer threw.
    public let underlying: any Error

    /// `The migration from 'V1' to 'V2' failed in the transformer of Person#12: <error>`.
    public var description: String {
        "The migration from '\(sourceVersion)' to '\(destinationVersion)' failed in the transformer of \(record): \(underlying)"
    }
}
