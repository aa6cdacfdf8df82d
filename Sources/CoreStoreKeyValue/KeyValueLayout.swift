import CoreStoreStorage

/// The key space of a ``KeyValueStorage``: where metadata, records and index entries live.
///
/// Three subspaces, each a one-byte space followed by ``TupleEncoder`` elements, all after the
/// prefix of the layout's ``generation`` (empty for generation 0, see ``KeyValueGeneration``):
/// ```
/// prefix 0x01 (name)                            → metadata value      names: format, metadata, nextKey, sequence
/// prefix 0x02 (root entity, record key)         → RecordCodec bytes   the concrete entity is in the value
/// prefix 0x03 (index name, value…, record key)  → CRC-32C of the key  one entry per record and index (empty in format 1)
/// ```
/// Records live under the **root** entity of their hierarchy: a `RecordID` whose entity is
/// the record's own entity or any ancestor of it names the same root, so one `get` finds the
/// record, and scanning an entity's records is one range scan in record-key order (records of
/// sibling entities in the range are skipped by their entity name, which a record's bytes
/// begin with).
///
/// Every index (see ``IndexDefinition``) is maintained in the same engine write as the records.
/// Every key is built here, from the generation's prefix: the prefixes are computed once, so a
/// store at a later generation reads and writes at the same cost as one at generation 0.
///
/// A class (immutable once made): every read and every commit takes the open store's layout,
/// and a copy of a struct retained and released each of the tables it holds.
public final class KeyValueLayout: Sendable {
    /// The byte after the generation prefix of metadata keys.
    public static let metadataSpace: UInt8 = 0x01
    /// The byte after the generation prefix of record keys.
    public static let recordSpace: UInt8 = 0x02
    /// The byte after the generation prefix of index entries.
    public static let indexSpace: UInt8 = 0x03
    /// The format version stored under the `format` metadata key: 2 once the store may hold
    /// records of ``RecordCodec/formatVersion`` 2, with their checksums; 3 once its commits keep
    /// the record count of each hierarchy (stored with the `sequence` counter) up to date; 4 once
    /// they also keep the totals of its integer and double attributes (after the counts). A
    /// store of an earlier version is read as it is and marked current by its first commit, in
    /// the same engine write (which also counts its records and totals); an earlier release
    /// then refuses it at open instead of writing records it cannot read, or records its counts
    /// and totals would not follow.
    public static let formatVersion: Int64 = 4
    /// Every format version this release opens.
    public static let readableFormatVersions: ClosedRange<Int64> = 1...4

    /// The schema the store was opened with.
    public let schema: StoreSchema
    /// The generation whose keys the layout builds.
    public let generation: KeyValueGeneration
    /// Every index of the schema.
    public let indexes: [IndexDefinition]
    private let indexesByEntity: [String: [IndexDefinition]]
    /// The schema's entity names, for decoding records without a new string per name.
    let entityNames: EntityNames
    /// The record-key prefix of every entity (its root's), computed once: building a record key
    /// is on the path of every insert, update, delete and index lookup.
    private let recordPrefixes: EntityNameMap<[UInt8]>
    /// Per concrete entity, its indexes ready to build entries (see ``IndexEntryPlan``).
    private let entryPlansByEntity: EntityNameMap<[IndexEntryPlan]>
    /// Per entity, what a written record is checked against; looking up the
    /// ``EntityDescription`` instead copied the whole description for every written record.
    private let shapes: EntityNameMap<EntityShape>
    /// The metadata keys of the two counters every commit writes, built once.
    let nextKeyCounterKey: [UInt8], sequenceCounterKey: [UInt8]

    /// What a record of an entity must look like.
    struct EntityShape: Sendable {
        /// Whether the entity is abstract (has no records of its own).
        let isAbstract: Bool
        /// The number of attribute values a record holds.
        let attributeCount: Int
        /// The number of relationships a record holds.
        let relationshipCount: Int
    }

    /// The layout of `schema` in the keys of `generation` (0: a store never migrated).
    public init(schema: StoreSchema, generation: UInt64 = 0) {
        self.schema = schema
        let generation = KeyValueGeneration(generation)
        self.generation = generation
        nextKeyCounterKey = generation.metadataKey(KeyValueGeneration.nextKeyCounter)
        sequenceCounterKey = generation.metadataKey(KeyValueGeneration.sequenceCounter)
        var byName: [String: IndexDefinition] = [:]
        var order: [String] = []
        func add(_ name: String, _ kind: IndexDefinition.Kind, _ scope: String, _ components: [IndexDefinition.Component], maintainedBy entity: String) {
            if byName[name] == nil {
                byName[name] = IndexDefinition(name: name, kind: kind, scope: scope, components: components, entities: [])
                order.append(name)
            }
            byName[name]?.entities.insert(entity)
        }
        for entity in schema.entities {
            let root = schema.rootEntity(of: entity.name)
            var lineage: [EntityDescription] = []
            var current: String? = entity.name
            while let name = current, let description = schema.entity(named: name) {
                lineage.append(description)
                current = description.parentName
            }
            for description in lineage {
                for attribute in description.attributes where attribute.isIndexed && schema.attributeOrdinal(attribute.name, in: entity.name) != nil {
                    add("\(root)|i|\(attribute.name)", .attribute, root, [.attribute(attribute.name)], maintainedBy: entity.name)
                }
                for attributes in description.indexes where !attributes.isEmpty && attributes.allSatisfy({ schema.attributeOrdinal($0, in: entity.name) != nil }) {
                    // A one-attribute index is the attribute index above (the schema marks its
                    // attribute `isIndexed` too): keeping both would write every entry twice.
                    if attributes.count == 1, description.attributes.contains(where: { $0.name == attributes[0] && $0.isIndexed }) { continue }
                    add("\(root)|c|\(attributes.joined(separator: ","))", .compound, root, attributes.map { .attribute($0) }, maintainedBy: entity.name)
                }
                for relationship in description.relationships where relationship.kind == .toOne && schema.relationshipOrdinal(relationship.name, in: entity.name) != nil {
                    add("\(root)|r|\(relationship.name)", .foreignKey, root, [.relationship(relationship.name)], maintainedBy: entity.name)
                }
            }
            for (owner, attributes) in schema.uniqueConstraints(applyingTo: entity.name)
            where !attributes.isEmpty && attributes.allSatisfy({ schema.attributeOrdinal($0, in: entity.name) != nil }) {
                add("\(owner)|u|\(attributes.joined(separator: ","))", .unique, owner, attributes.map { .attribute($0) }, maintainedBy: entity.name)
            }
        }
        indexes = order.compactMap { byName[$0] }
        var byEntity: [String: [IndexDefinition]] = [:]
        for index in indexes {
            for entity in index.entities { byEntity[entity, default: []].append(index) }
        }
        indexesByEntity = byEntity
        entityNames = EntityNames(schema: schema)
        var prefixes: [String: [UInt8]] = [:]
        for entity in schema.entities {
            var key = generation.spacePrefix(Self.recordSpace)
            TupleEncoder.encodeString(schema.rootEntity(of: entity.name), into: &key)
            prefixes[entity.name] = key
        }
        recordPrefixes = EntityNameMap(prefixes)
        var plans: [String: [IndexEntryPlan]] = [:]
        for (entity, indexes) in byEntity {
            plans[entity] = indexes.map { IndexEntryPlan(index: $0, entity: entity, schema: schema, generation: generation) }
        }
        entryPlansByEntity = EntityNameMap(plans)
        var shapes: [String: EntityShape] = [:]
        for entity in schema.entities {
            shapes[entity.name] = EntityShape(isAbstract: entity.isAbstract, attributeCount: entity.attributes.count, relationshipCount: entity.relationships.count)
        }
        self.shapes = EntityNameMap(shapes)
    }

    /// The shape of `entity`, `nil` for an entity the schema lacks.
    func shape(of entity: String) -> EntityShape? {
        shapes[entity]
    }

    /// The indexes a record of the concrete `entity` has entries in, ready to build entries.
    func entryPlans(maintainedBy entity: String) -> [IndexEntryPlan] {
        entryPlansByEntity[entity] ?? []
    }

    /// The indexes a record of the concrete `entity` has entries in.
    public func indexes(maintainedBy entity: String) -> [IndexDefinition] {
        indexesByEntity[entity] ?? []
    }

    // MARK: - Metadata

    /// The key of the metadata value `name`.
    public func metadataKey(_ name: String) -> [UInt8] {
        generation.metadataKey(name)
    }

    // MARK: - Records

    /// The prefix of every record of `entity`'s hierarchy.
    public func recordPrefix(ofHierarchyOf entity: String) -> [UInt8] {
        if let prefix = recordPrefixes[entity] { return prefix }
        var key = generation.spacePrefix(Self.recordSpace)
        TupleEncoder.encodeString(schema.rootEntity(of: entity), into: &key)
        return key
    }

    /// The key of the record `key` in `entity`'s hierarchy.
    public func recordKey(entity: String, key: Int64) -> [UInt8] {
        var bytes = recordPrefix(ofHierarchyOf: entity)
        bytes.reserveCapacity(bytes.count + 9)
        TupleEncoder.encodeInt(key, into: &bytes)
        return bytes
    }

    /// The record with `id` that `reader` holds, also when `id.entity` is an ancestor of the
    /// record's entity; `nil` when there is none (or it is of another entity). Read in place and
    /// decoded with the schema's entity names.
    func record(_ id: RecordID, in reader: any KeyValueReader) throws -> Record? {
        guard schema.entity(named: id.entity) != nil else { return nil }
        var record: Record?
        _ = try reader.withValue(recordKey(entity: id.entity, key: id.key)) { bytes in
            record = try RecordCodec.decode(bytes, names: entityNames, checksChecksum: !reader.verifiesStoredBytes)
        }
        guard let record, schema.entity(record.id.entity, isKindOf: id.entity) else { return nil }
        return record
    }

    // MARK: - Indexes

    /// The non-unique index of the attribute `key` alone whose entries are exactly those of the
    /// records of `entities` (abstract entities have no records): an index from which a read of
    /// those records' `key` values needs nothing else. `nil` when there is none.
    func oneAttributeIndex(of key: String, holdingExactly entities: Set<String>) -> IndexDefinition? {
        indexes.first { index in
            index.kind != .unique && index.components == [.attribute(key)] && entities.isSubset(of: index.entities)
                && index.entities.allSatisfy { entities.contains($0) || schema.entity(named: $0)?.isAbstract == true }
        }
    }

    /// The prefix of every entry of `index`.
    public func prefix(of index: IndexDefinition) -> [UInt8] {
        Self.prefix(ofIndexNamed: index.name, in: generation)
    }

    /// The prefix of every entry of the index `name` in `generation`.
    static func prefix(ofIndexNamed name: String, in generation: KeyValueGeneration) -> [UInt8] {
        var key = generation.spacePrefix(indexSpace)
        TupleEncoder.encodeString(name, into: &key)
        return key
    }

    /// The values `record` contributes to `index`: attribute values, or for a foreign key the
    /// destination's record key as an `int` (`nil` without destination).
    public func values(of record: Record, in index: IndexDefinition) -> [Value] {
        index.components.map { component in
            switch component {
            case .attribute(let name):
                guard let ordinal = schema.attributeOrdinal(name, in: record.id.entity), ordinal < record.attributes.count else { return .null }
                return record.attributes[ordinal]
            case .relationship(let name):
                guard let ordinal = schema.relationshipOrdinal(name, in: record.id.entity), ordinal < record.relationships.count,
                      let destination = record.relationships[ordinal].first else { return .null }
                return .int(destination.key)
            }
        }
    }

    /// The entry of `record` in `index`: prefix, values, record key.
    public func entry(of record: Record, in index: IndexDefinition) -> [UInt8] {
        var key = prefix(of: index)
        for value in values(of: record, in: index) { TupleEncoder.encode(value, into: &key) }
        TupleEncoder.encodeInt(record.id.key, into: &key)
        return key
    }

    /// The record key an index entry ends with (its last 9 bytes, whatever the generation prefix
    /// before them).
    public static func recordKey(ofEntry entry: [UInt8]) throws -> Int64 {
        try entry.withUnsafeBytes { try recordKey(ofEntry: $0) }
    }

    /// The record key an index entry ends with, read in place (this runs once per entry of
    /// every index scan).
    static func recordKey(ofEntry entry: UnsafeRawBufferPointer) throws -> Int64 {
        let start = entry.count - 9
        guard start >= 0, entry[start] == TupleEncoder.TypeCode.int else {
            throw KeyValueFormatError.damaged("index entry", entry.count < 9 ? "too short" : "expected an integer")
        }
        let bits = UInt64(bigEndian: entry.loadUnaligned(fromByteOffset: start + 1, as: UInt64.self))
        return Int64(bitPattern: bits ^ (1 << 63))
    }
}

/// One index of a ``KeyValueLayout``: entries `(name, values…, record key)` whose value is the
/// CRC-32C of the entry (see `IndexEntryChecksum`; empty in stores of format 1).
public struct IndexDefinition: Sendable, Hashable {
    /// What declared the index.
    public enum Kind: Sendable, Hashable {
        /// An attribute with `isIndexed`.
        case attribute
        /// A compound index of an entity.
        case compound
        /// A uniqueness constraint; its entries also enforce it.
        case unique
        /// A to-one relationship: the destination's record key.
        case foreignKey
    }

    /// One indexed value.
    public enum Component: Sendable, Hashable {
        /// An attribute, by name.
        case attribute(String)
        /// A to-one relationship, by name.
        case relationship(String)
    }

    /// The stable name used in keys, such as `Person|i|age`, `Person|u|email`, `Dog|r|owner`.
    public let name: String
    /// What declared the index.
    public let kind: Kind
    /// The root entity (for a unique constraint: the entity that declared it).
    public let scope: String
    /// The indexed values, most significant first.
    public let components: [Component]
    /// The concrete entities whose records have entries.
    public internal(set) var entities: Set<String>

    /// The attribute names of the components (relationship names for foreign keys).
    public var componentNames: [String] {
        components.map {
            switch $0 {
            case .attribute(let name), .relationship(let name): return name
            }
        }
    }
}
