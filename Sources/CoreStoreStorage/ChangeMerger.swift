/// Resolves a ``ChangeSet`` against what a store holds at commit time, property by property —
/// the merge every store performs inside its write, written once.
///
/// ## The rules
/// - **Inserts** are written as they are.
/// - **Updates** start from the *stored* record and apply only the update's ``RecordUpdate/changedKeys``:
///   an attribute or to-one relationship takes the writer's value — except that clearing a
///   to-one whose stored destination is no longer the one in ``RecordUpdate/base`` keeps the
///   stored destination (the writer removed a relationship that another commit already
///   replaced; this is also what keeps the implicit clearing of a deleted object's inverses from
///   undoing a concurrent move); a to-many relationship takes
///   the writer's list when the stored list still equals ``RecordUpdate/base`` (or no base is
///   known), otherwise the stored list minus the destinations the writer removed since the base,
///   plus the ones it added (appended in the writer's order). Keys the writer did not change keep
///   their stored value, so concurrent writers that change different keys both keep their change;
///   when two commits change the same key, the later one wins.
/// - **Deletes** remove the stored record.
/// - **Inverses stay consistent.** For every relationship with an inverse whose destinations
///   changed (stored → written), each removed destination loses the record from its inverse, and
///   each added destination gains it; when that inverse is a to-one, the destination's previous
///   owner loses the destination. Records changed this way are updates of the commit too. A
///   destination that was added but no longer exists (no record holds its key with its entity
///   or a sub-entity of it), or whose record is not of the relationship's destination entity,
///   fails the commit with ``StorageError/conflict(_:reason:)``, as does a merged to-many that
///   breaks its relationship's count bounds.
/// - An update of a record that does not exist (or is deleted in the same change set), a
///   repeated delete, an unknown or abstract entity, or a record of the wrong shape throws, and
///   the store writes nothing.
///
/// Identifiers must already be permanent (see ``ChangeSet/assigningPermanentIDs(startingAt:)``).
/// Record keys are unique within a store, so records are tracked by key.
public struct ChangeMerger {
    /// Reads stored records inside the store's write: `nil` where a record does not exist.
    public typealias Loader = ([RecordID]) throws -> [Record?]

    private let validator: RecordValidator
    private let load: Loader

    /// Stored versions read so far (`nil`: looked up, does not exist).
    private var stored: [Int64: Record?] = [:]
    /// The merged version of every stored record the commit changes, with the keys that may
    /// differ from the stored version (`nil`: any key may).
    private var current: [Int64: (record: Record, keys: Set<String>?)] = [:]
    /// How each key of an entity is stored, by entity (the last one used first: change sets
    /// mostly hold runs of one entity, and comparing a name is cheaper than hashing it).
    private var entityKeys: [String: EntityKeys] = [:]
    private var lastEntityKeys: EntityKeys?
    /// Keys of stored records the commit changes, in the order they were first changed.
    private var changedOrder: [Int64] = []
    private var deletedKeys = RecordKeySet()
    /// Whether deletes of entities without relationships are left unread (see
    /// ``merge(_:schema:basesAreStored:acceptsUnreadDeletes:load:)``).
    private var skipsUnneededDeletes = false
    /// Whether each update's base is its stored record (see
    /// ``merge(_:schema:basesAreStored:acceptsUnreadDeletes:load:)``).
    private var basesAreStored = false
    private var inserts: [Record]
    /// Position of each insert by key, built when an inverse first needs it.
    private var insertSlots: [Int64: Int]?

    private init(schema: StoreSchema, inserts: [Record], load: @escaping Loader) {
        self.validator = RecordValidator(schema: schema)
        self.inserts = inserts
        self.load = load
    }

    /// Merges `changes` (permanent identifiers only) with the stored records `load` returns.
    /// `load` runs inside this call only, on the store's write view. With `basesAreStored` (the
    /// store committed nothing since the writer read them: see ``ChangeSet/baseSequence``) each
    /// update's ``RecordUpdate/base``, and each of ``ChangeSet/deleteBases``, is taken as its
    /// stored record instead of being read.
    ///
    /// A store that passes `acceptsUnreadDeletes` also removes the records in
    /// ``MergedChanges/unreadDeletes``: deletes of entities without relationships that are not
    /// read, because nothing needs them. That is when the change set does not want the deleted
    /// records back (``ChangeSet/returnsDeletedRecords``) and `basesAreStored`: the store
    /// committed nothing since the writer read the identifiers it deletes, so they exist.
    public static func merge(
        _ changes: ChangeSet, schema: StoreSchema, basesAreStored: Bool = false, acceptsUnreadDeletes: Bool = false, load: Loader
    ) throws -> MergedChanges {
        try withoutActuallyEscaping(load) { load in
            var merger = ChangeMerger(schema: schema, inserts: changes.inserts, load: load)
            merger.skipsUnneededDeletes = acceptsUnreadDeletes && basesAreStored && !changes.returnsDeletedRecords
            merger.basesAreStored = basesAreStored
            if basesAreStored {
                merger.stored.makeRoom(forAdditional: changes.deletes.count + changes.updates.count)
                // A base stands in for the stored record only if it has its entity's shape (a
                // change set made by hand may carry any record); otherwise the record is read.
                var shapes = RecordShapes(schema: schema)
                // By address, as in `run`: no copy of each update.
                changes.updates.forEachElementAddress { update in
                    if let base = update.pointee.base, base.id == update.pointee.record.id, shapes.fit(base) { merger.stored[base.id.key] = .some(base) }
                }
                for base in changes.deleteBases where shapes.fit(base) { merger.stored[base.id.key] = .some(base) }
            }
            return try merger.run(changes)
        }
    }

    private mutating func run(_ changes: ChangeSet) throws -> MergedChanges {
        // Inserts of the entity validated last that have its shape need no new validation; its
        // shape is kept here (looking the entity up again copied its description per insert).
        var lastEntity = ""
        var lastShape = (attributes: -1, relationships: -1)
        for record in inserts {
            if record.id.entity == lastEntity,
               record.attributes.count == lastShape.attributes, record.relationships.count == lastShape.relationships {
                continue
            }
            try validator.validateInsert(record)
            lastEntity = record.id.entity
            if let entity = validator.schema.entity(named: lastEntity) {
                lastShape = (entity.attributes.count, entity.relationships.count)
            } else {
                lastShape = (-1, -1)
            }
        }
        if stored.isEmpty { stored.makeRoom(forAdditional: changes.deletes.count + changes.updates.count) }
        current.makeRoom(forAdditional: changes.updates.count)
        changedOrder.reserveCapacity(changes.updates.count)
        deletedKeys.reserveCapacity(changes.deletes.count)
        var unread: [RecordID] = []
        var toRead = changes.deletes
        if skipsUnneededDeletes {
            toRead = []
            // Deletes come in runs of one entity: its relationships are looked up once a run.
            var lastEntity = "", lastHasNone = false
            for id in changes.deletes {
                if id.entity != lastEntity {
                    lastEntity = id.entity
                    lastHasNone = validator.schema.entity(named: lastEntity)?.relationships.isEmpty == true
                }
                if lastHasNone && stored[id.key] == nil { unread.append(id) } else { toRead.append(id) }
            }
        }
        try preload(toRead + changes.updates.map(\.record.id))

        var deleted: [Record] = []
        deleted.reserveCapacity(toRead.count)
        for id in toRead {
            guard let old = storedRecord(exactly: id), deletedKeys.insert(id.key) else { throw StorageError.recordNotFound(id) }
            deleted.append(old)
        }
        for id in unread where !deletedKeys.insert(id.key) {
            throw StorageError.recordNotFound(id)
        }
        // Each update is read in place: passing it by value copied it (its two records and
        // its key set) per update.
        try changes.updates.forEachElementAddress { try apply(at: $0) }
        try keepInversesConsistent(changes, deleted: deleted)
        try checkCounts()

        var updates: [RecordReplacement] = []
        updates.reserveCapacity(changedOrder.count)
        for key in changedOrder {
            guard let old = stored[key] ?? nil, let new = current[key] else { continue }
            let keys = differingKeys(old, new.record, among: new.keys)
            if !keys.isEmpty { updates.append(RecordReplacement(old: old, new: new.record, changedKeys: keys)) }
        }
        return MergedChanges(inserts: inserts, updates: updates, deletes: deleted, unreadDeletes: unread)
    }

    // MARK: Updates

    /// Merges the update at `update` into the current records.
    private mutating func apply(at update: UnsafePointer<RecordUpdate>) throws {
        let mine = update.pointee.record
        let keys = try entityKeys(of: mine.id.entity)
        guard mine.attributes.count == keys.entity.attributes.count, mine.relationships.count == keys.entity.relationships.count else {
            try validator.validateShape(mine)
            return
        }
        let earlier = current[mine.id.key]?.record
        if earlier == nil, basesAreStored, let base = update.pointee.base, base.id == mine.id, !deletedKeys.contains(mine.id.key),
           keys.writerKeepsTheRest(of: base, in: mine, changing: update.pointee.changedKeys) {
            // The stored record is the writer's base: each changed key takes the writer's
            // value (a to-many's stored list is its base, a cleared to-one's stored destination
            // too), and every other key already holds the stored value. The merged record is
            // the writer's own, with no copy of the stored one.
            setCurrent(mine, keys: update.pointee.changedKeys)
            return
        }
        guard !deletedKeys.contains(mine.id.key), var merged = earlier ?? storedRecord(exactly: mine.id) else {
            throw StorageError.recordNotFound(mine.id)
        }
        for (_, slot) in keys.resolve(update.pointee.changedKeys) {
            switch slot {
            case .attribute(let ordinal):
                merged.attributes[ordinal] = mine.attributes[ordinal]
            case .relationship(let ordinal, let isToMany):
                let base = update.pointee.base.flatMap { $0.relationships.indices.contains(ordinal) ? $0.relationships[ordinal] : nil }
                if isToMany, let base {
                    merged.relationships[ordinal] = Self.mergeToMany(stored: merged.relationships[ordinal], base: base, mine: mine.relationships[ordinal])
                } else if mine.relationships[ordinal].isEmpty, let base, merged.relationships[ordinal].map(\.key) != base.map(\.key) {
                    // Clearing a to-one removes the relationship the writer saw; another commit
                    // pointed it elsewhere meanwhile, and that newer relationship stays.
                    continue
                } else {
                    merged.relationships[ordinal] = mine.relationships[ordinal]
                }
            }
        }
        setCurrent(merged, keys: update.pointee.changedKeys)
    }

    /// The keys of `entityName` (built once per entity).
    private mutating func entityKeys(of entityName: String) throws -> EntityKeys {
        if let last = lastEntityKeys, last.entity.name == entityName { return last }
        let keys: EntityKeys
        if let known = entityKeys[entityName] {
            keys = known
        } else {
            guard let entity = validator.schema.entity(named: entityName) else { throw StorageError.unknownEntity(entityName) }
            keys = EntityKeys(entity)
            entityKeys[entityName] = keys
        }
        lastEntityKeys = keys
        return keys
    }

    /// The writer's list when nobody else changed the stored one since `base`; otherwise the
    /// stored list without the writer's removals, with the writer's additions appended.
    public static func mergeToMany(stored: [RecordID], base: [RecordID], mine: [RecordID]) -> [RecordID] {
        if stored.map(\.key) == base.map(\.key) { return mine }
        let baseKeys = Set(base.map(\.key))
        let mineKeys = Set(mine.map(\.key))
        var result = stored.filter { !baseKeys.contains($0.key) || mineKeys.contains($0.key) }
        var present = Set(result.map(\.key))
        for id in mine where !baseKeys.contains(id.key) && present.insert(id.key).inserted {
            result.append(id)
        }
        return result
    }

    // MARK: Inverses

    private mutating func keepInversesConsistent(_ changes: ChangeSet, deleted: [Record]) throws {
        // Decided once per schema, not by scanning every entity on every commit.
        guard validator.schema.hasInverseRelationships else { return }
        let schema = validator.schema
        var edges: [(source: RecordID, ordinal: Int, removed: [RecordID], added: [RecordID])] = []
        func collect(_ before: Record?, _ after: Record?) {
            guard let any = after ?? before, let entity = schema.entity(named: any.id.entity) else { return }
            for (ordinal, relationship) in entity.relationships.enumerated() where relationship.inverseName != nil {
                let old = before?.relationships[ordinal] ?? []
                let new = after?.relationships[ordinal] ?? []
                if old.isEmpty && new.isEmpty { continue }
                let oldKeys = Set(old.map(\.key)), newKeys = Set(new.map(\.key))
                if oldKeys == newKeys { continue }
                edges.append((any.id, ordinal, old.filter { !newKeys.contains($0.key) }, new.filter { !oldKeys.contains($0.key) }))
            }
        }
        for record in inserts { collect(nil, record) }
        for key in changedOrder { collect(stored[key] ?? nil, current[key]?.record) }
        for record in deleted { collect(record, nil) }
        if edges.isEmpty { return }
        let slots = insertPositions()
        try preload(edges.flatMap { $0.removed + $0.added }.filter { slots[$0.key] == nil })

        for edge in edges {
            guard let relationship = schema.entity(named: edge.source.entity)?.relationships[edge.ordinal],
                  let inverseName = relationship.inverseName else { continue }
            for destination in edge.removed {
                try modify(destination) { record in
                    guard let inverse = schema.relationshipOrdinal(inverseName, in: record.id.entity) else { return }
                    record.relationships[inverse].removeAll { $0.key == edge.source.key }
                }
            }
            for destination in edge.added {
                var previousOwner: RecordID?
                var isDestination = true
                let found = try modify(destination) { record in
                    guard schema.entity(record.id.entity, isKindOf: relationship.destinationEntity) else {
                        isDestination = false
                        return
                    }
                    guard let inverse = schema.relationshipOrdinal(inverseName, in: record.id.entity),
                          let inverseRelationship = schema.entity(named: record.id.entity)?.relationships[inverse] else { return }
                    if record.relationships[inverse].contains(where: { $0.key == edge.source.key }) { return }
                    if inverseRelationship.kind.isToMany {
                        record.relationships[inverse].append(edge.source)
                    } else {
                        previousOwner = record.relationships[inverse].first
                        record.relationships[inverse] = [edge.source]
                    }
                }
                guard found else {
                    throw StorageError.conflict(edge.source, reason: "relates through '\(relationship.name)' to \(destination), which does not exist")
                }
                guard isDestination else {
                    throw StorageError.conflict(edge.source, reason: "relates through '\(relationship.name)' to \(destination), which is not a '\(relationship.destinationEntity)'")
                }
                if let previousOwner {
                    try modify(previousOwner) { record in
                        guard let ordinal = schema.relationshipOrdinal(relationship.name, in: record.id.entity) else { return }
                        record.relationships[ordinal].removeAll { $0.key == destination.key }
                    }
                }
            }
        }
    }

    /// Changes the current version of the record `id` names (an insert, or a stored record not
    /// deleted by this commit); returns `false` when there is none.
    ///
    /// The record with `id.key` counts only when its entity is `id.entity` or a sub-entity of it,
    /// as the loader finds records: the cache is by key, so without this check whether `id`
    /// exists would depend on which identifier loaded that key first.
    @discardableResult
    private mutating func modify(_ id: RecordID, _ body: (inout Record) -> Void) throws -> Bool {
        if deletedKeys.contains(id.key) { return false }
        if let slot = insertPositions()[id.key] {
            guard validator.schema.entity(inserts[slot].id.entity, isKindOf: id.entity) else { return false }
            body(&inserts[slot])
            return true
        }
        if stored[id.key] == nil { try preload([id]) }
        guard var record = current[id.key]?.record ?? (stored[id.key] ?? nil), validator.schema.entity(record.id.entity, isKindOf: id.entity) else { return false }
        let before = record
        body(&record)
        if record != before { setCurrent(record, keys: nil) }
        return true
    }

    /// The position of each insert by key, built the first time it is needed.
    private mutating func insertPositions() -> [Int64: Int] {
        if let slots = insertSlots { return slots }
        var slots: [Int64: Int] = [:]
        slots.makeRoom(forAdditional: inserts.count)
        for (i, record) in inserts.enumerated() { slots[record.id.key] = i }
        insertSlots = slots
        return slots
    }

    // MARK: Counts

    /// Throws when a merged to-many relationship holds fewer or more destinations than its
    /// entity allows (two commits that each add within bounds can together exceed them).
    private mutating func checkCounts() throws {
        guard validator.schema.hasBoundedToManyRelationships else { return }
        func check(_ record: Record, changedFrom old: Record?, _ keys: EntityKeys) throws {
            for (ordinal, relationship) in keys.entity.relationships.enumerated() where relationship.kind.isToMany && (relationship.minCount > 0 || relationship.maxCount > 0) {
                let count = record.relationships[ordinal].count
                if let old, old.relationships[ordinal].count == count { continue }
                if count < relationship.minCount || (relationship.maxCount > 0 && count > relationship.maxCount) {
                    let allowed = relationship.maxCount > 0 ? "\(relationship.minCount) to \(relationship.maxCount)" : "at least \(relationship.minCount)"
                    throw StorageError.conflict(record.id, reason: "would hold \(count) destinations in '\(relationship.name)', which allows \(allowed)")
                }
            }
        }
        for key in changedOrder {
            if let record = current[key]?.record { try check(record, changedFrom: stored[key] ?? nil, try entityKeys(of: record.id.entity)) }
        }
        // Every insert, as the inverses left it (or as written, when no inverse changed it).
        for record in inserts { try check(record, changedFrom: nil, try entityKeys(of: record.id.entity)) }
    }

    // MARK: Stored records

    /// Reads the stored versions of the `ids` not read yet, in one call.
    private mutating func preload(_ ids: [RecordID]) throws {
        var seen = RecordKeySet(minimumCapacity: ids.count)
        let missing = ids.filter { stored[$0.key] == nil && seen.insert($0.key) }
        if missing.isEmpty { return }
        let records = try load(missing)
        for (id, record) in zip(missing, records) { stored[id.key] = .some(record) }
    }

    /// The stored record `id` names, when its entity is exactly `id.entity`.
    private func storedRecord(exactly id: RecordID) -> Record? {
        guard let record = stored[id.key] ?? nil, record.id.entity == id.entity else { return nil }
        return record
    }

    /// Records `record` as the merged version; `keys` are the keys that may differ from the
    /// stored version (`nil`: any), added to those of an earlier version.
    private mutating func setCurrent(_ record: Record, keys: Set<String>?) {
        let key = record.id.key
        // One lookup for the common case, a key changed once.
        if let earlier = current.updateValue((record, keys), forKey: key) {
            current[key]?.keys = if let keys, let earlierKeys = earlier.keys { earlierKeys.union(keys) } else { nil }
        } else {
            changedOrder.append(key)
        }
    }

    /// The keys whose values differ between `old` and `new`, looking only at `candidates` when
    /// given (returned as they are when every one differs, the common case); an unordered
    /// to-many compares as a set.
    private mutating func differingKeys(_ old: Record, _ new: Record, among candidates: Set<String>?) -> Set<String> {
        guard let keys = try? entityKeys(of: new.id.entity) else { return [] }
        func differs(_ slot: KeySlot?) -> Bool {
            switch slot {
            case .attribute(let i)?:
                return old.attributes[i] != new.attributes[i]
            case .relationship(let i, _)?:
                guard old.relationships[i] != new.relationships[i] else { return false }
                return keys.entity.relationships[i].kind != .toManyUnordered
                    || Set(old.relationships[i].map(\.key)) != Set(new.relationships[i].map(\.key))
            case nil:
                return false
            }
        }
        if let candidates {
            let resolved = keys.resolve(candidates)
            if resolved.count == candidates.count && resolved.allSatisfy({ differs($0.slot) }) { return candidates }
            return Set(resolved.lazy.filter { differs($0.slot) }.map(\.name))
        }
        return Set(zip(keys.names, keys.slots).filter { differs($0.1) }.map(\.0))
    }
}

/// Where a key of an entity is stored in its records.
private enum KeySlot {
    case attribute(Int)
    case relationship(Int, isToMany: Bool)
}

/// An entity's keys and where each is stored. Entities have few keys, so a key is found by
/// comparing names (short names compare in a word or two) rather than by hashing. A class, so
/// that handing it out for each record costs one retain, not a copy of the entity description.
private final class EntityKeys {
    let entity: EntityDescription
    let names: [String]
    let slots: [KeySlot]

    init(_ entity: EntityDescription) {
        self.entity = entity
        names = entity.attributes.map(\.name) + entity.relationships.map(\.name)
        slots = entity.attributes.indices.map { KeySlot.attribute($0) }
            + entity.relationships.enumerated().map { KeySlot.relationship($0.offset, isToMany: $0.element.kind.isToMany) }
    }

    /// The last set of names resolved: its slots, and the ordinals of its attributes and
    /// relationships as bits (`nil` for an entity with more than 64 of either).
    private var lastResolved: (names: Set<String>, slots: [(name: String, slot: KeySlot)], masks: (attributes: UInt64, relationships: UInt64)?)?

    func slot(_ name: String) -> KeySlot? {
        names.firstIndex(of: name).map { slots[$0] }
    }

    /// The slot of each of `names` the entity has (the others are left out). Consecutive
    /// updates of a change set mostly name the very same set (the object layer shares one set
    /// per combination of changed keys), which is then resolved once: equal sets that share
    /// their storage compare without hashing.
    func resolve(_ names: Set<String>) -> [(name: String, slot: KeySlot)] {
        resolveWithMasks(names).slots
    }

    private func resolveWithMasks(_ names: Set<String>) -> (slots: [(name: String, slot: KeySlot)], masks: (attributes: UInt64, relationships: UInt64)?) {
        if let lastResolved, lastResolved.names == names { return (lastResolved.slots, lastResolved.masks) }
        let resolved = names.compactMap { name in slot(name).map { (name: name, slot: $0) } }
        var masks: (attributes: UInt64, relationships: UInt64)?
        if entity.attributes.count <= 64, entity.relationships.count <= 64 {
            var attributes: UInt64 = 0, relationships: UInt64 = 0
            for (_, slot) in resolved {
                switch slot {
                case .attribute(let i): attributes |= 1 << i
                case .relationship(let i, _): relationships |= 1 << i
                }
            }
            masks = (attributes, relationships)
        }
        lastResolved = (names, resolved, masks)
        return (resolved, masks)
    }

    /// Whether `mine` holds the same values as `base` for every key outside `changed`, both
    /// records of this entity's shape: then merging `changed` into `base` gives `mine` itself.
    func writerKeepsTheRest(of base: Record, in mine: Record, changing changed: Set<String>) -> Bool {
        guard base.attributes.count == entity.attributes.count, mine.attributes.count == entity.attributes.count,
              base.relationships.count == entity.relationships.count, mine.relationships.count == entity.relationships.count,
              let masks = resolveWithMasks(changed).masks else { return false }
        for i in base.attributes.indices where masks.attributes & (1 << i) == 0 {
            if base.attributes[i] != mine.attributes[i] { return false }
        }
        for i in base.relationships.indices where masks.relationships & (1 << i) == 0 {
            if base.relationships[i] != mine.relationships[i] { return false }
        }
        return true
    }
}
