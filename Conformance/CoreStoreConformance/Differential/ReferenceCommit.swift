import CoreStoreStorage

/// How often the reference model took each merge path, summed over the commits of a run.
public struct MergeCounters: Sendable, Hashable, CustomStringConvertible {
    /// Updates applied.
    public var updates = 0
    /// Keys an update did not name although the writer's view of them differed from what was
    /// stored: whole-record writing would have lost a change another commit made.
    public var keptStoredValues = 0
    /// Changed to-many keys whose stored list had changed since the writer's base, so that the
    /// writer's additions and removals were merged into the stored list.
    public var toManyMerges = 0
    /// Destinations whose inverse the commit changed although the writer did not.
    public var inverseFixes = 0
    /// Previous owners that lost a destination when it moved to a new owner through a to-one inverse.
    public var previousOwnerFixes = 0
    /// Of the inverse fixes, destinations that still named a deleted record (the writer had not
    /// removed it from them, typically because it did not see the relation).
    public var deleteFixes = 0
    /// Commits rejected for relating to a record that does not exist.
    public var danglingRejections = 0

    /// No counts.
    public init() {}

    /// Adds `other` to these counts.
    public mutating func add(_ other: MergeCounters) {
        updates += other.updates
        keptStoredValues += other.keptStoredValues
        toManyMerges += other.toManyMerges
        inverseFixes += other.inverseFixes
        previousOwnerFixes += other.previousOwnerFixes
        deleteFixes += other.deleteFixes
        danglingRejections += other.danglingRejections
    }

    /// `updates 1, kept stored values 2, …`.
    public var description: String {
        "updates \(updates), kept stored values \(keptStoredValues), to-many merges \(toManyMerges), inverse fixes \(inverseFixes), "
            + "previous-owner fixes \(previousOwnerFixes), delete fixes \(deleteFixes), dangling rejections \(danglingRejections)"
    }
}

/// One commit being applied by the ``ReferenceModel``: the merge rules of the storage contract
/// (the rules `ChangeMerger` states), written a second time, plainly, so that the two
/// implementations check each other.
///
/// - An update starts from the record as the model holds it and takes the writer's value for
///   each changed key only. A changed to-many with a base takes the writer's list when the held
///   list equals the base; otherwise the held list loses what the writer removed since the base
///   and gains what it added (appended in the writer's order). A to-one cleared by a writer
///   whose base destination is no longer the held one keeps the held destination. Records
///   compare by key.
/// - Then, for every relationship with an inverse whose destinations changed (held → written,
///   nothing → inserted, held → deleted), removed destinations lose the source from their
///   inverse and added ones gain it; an added destination with a to-one inverse first leaves
///   its previous owner. An added destination that does not exist (no record with its key whose
///   entity is the identifier's or a sub-entity of it), or is not of the relationship's
///   destination entity, rejects the commit.
/// - Problems are collected, not thrown: a store may report any of them.
struct ReferenceCommit {
    let schema: StoreSchema
    /// The records before the commit.
    let stored: [Int64: Record]
    /// The records as the commit leaves them so far.
    private(set) var state: [Int64: Record]
    private(set) var problems: [StorageError] = []
    private(set) var counters = MergeCounters()
    private(set) var foundDanglingRelation = false
    private var insertedKeys: [Int64] = []
    /// Keys of the records updates changed, in the order of their first update.
    private var updatedKeys: [Int64] = []
    private var deletedRecords: [Record] = []

    init(schema: StoreSchema, stored: [Int64: Record]) {
        self.schema = schema
        self.stored = stored
        self.state = stored
    }

    // MARK: The change set

    mutating func delete(_ ids: [RecordID]) {
        for id in ids {
            guard let record = state[id.key], record.id.entity == id.entity else {
                problems.append(.recordNotFound(id))
                continue
            }
            state[id.key] = nil
            deletedRecords.append(record)
        }
    }

    mutating func update(_ updates: [RecordUpdate]) {
        for update in updates {
            let mine = update.record
            if let problem = shapeProblem(mine) {
                problems.append(problem)
                continue
            }
            guard var record = state[mine.id.key], record.id.entity == mine.id.entity,
                  let entity = schema.entity(named: mine.id.entity) else {
                problems.append(.recordNotFound(mine.id))
                continue
            }
            counters.updates += 1
            for (i, attribute) in entity.attributes.enumerated() {
                if update.changedKeys.contains(attribute.name) {
                    record.attributes[i] = mine.attributes[i]
                } else if record.attributes[i] != mine.attributes[i] {
                    counters.keptStoredValues += 1
                }
            }
            for (i, relationship) in entity.relationships.enumerated() {
                guard update.changedKeys.contains(relationship.name) else {
                    if !Self.sameDestinations(record.relationships[i], mine.relationships[i], relationship.kind) { counters.keptStoredValues += 1 }
                    continue
                }
                let base = update.base.flatMap { $0.relationships.indices.contains(i) ? $0.relationships[i] : nil }
                if relationship.kind.isToMany, let base {
                    if Set(record.relationships[i].map(\.key)) != Set(base.map(\.key)) { counters.toManyMerges += 1 }
                    record.relationships[i] = Self.mergeToMany(held: record.relationships[i], base: base, mine: mine.relationships[i])
                } else if mine.relationships[i].isEmpty, let base, Set(record.relationships[i].map(\.key)) != Set(base.map(\.key)) {
                    counters.keptStoredValues += 1
                } else {
                    record.relationships[i] = mine.relationships[i]
                }
            }
            state[record.id.key] = record
            if !updatedKeys.contains(record.id.key) { updatedKeys.append(record.id.key) }
        }
    }

    mutating func insert(_ records: [Record]) {
        for record in records {
            guard let entity = schema.entity(named: record.id.entity), !entity.isAbstract else {
                problems.append(.unknownEntity(record.id.entity))
                continue
            }
            if let problem = shapeProblem(record) {
                problems.append(problem)
                continue
            }
            if state[record.id.key] != nil || insertedKeys.contains(record.id.key) {
                problems.append(.invalidRequest("record \(record.id) is inserted twice"))
                continue
            }
            state[record.id.key] = record
            insertedKeys.append(record.id.key)
        }
    }

    /// The writer's list when the held one is still the base; otherwise the held list without
    /// the writer's removals, then the writer's additions in its order. By key.
    static func mergeToMany(held: [RecordID], base: [RecordID], mine: [RecordID]) -> [RecordID] {
        if held.map(\.key) == base.map(\.key) { return mine }
        let baseKeys = Set(base.map(\.key)), mineKeys = Set(mine.map(\.key))
        let removedKeys = baseKeys.subtracting(mineKeys)
        let added = mine.filter { !baseKeys.contains($0.key) }
        var result = held.filter { !removedKeys.contains($0.key) }
        for id in added where !result.contains(where: { $0.key == id.key }) {
            result.append(id)
        }
        return result
    }

    // MARK: Inverses

    /// One relationship of one record whose destinations the commit changed.
    private struct Edge {
        var source: RecordID
        var relationship: RelationshipDescription
        var removed: [RecordID]
        var added: [RecordID]
        var sourceIsDeleted = false
    }

    /// The destinations that left and joined each relationship with an inverse of a record,
    /// from `before` (nil: inserted) to `after` (nil: deleted).
    private func edges(_ before: Record?, _ after: Record?) -> [Edge] {
        guard let record = after ?? before, let entity = schema.entity(named: record.id.entity) else { return [] }
        var result: [Edge] = []
        for (i, relationship) in entity.relationships.enumerated() where relationship.inverseName != nil {
            let old = before?.relationships[i] ?? [], new = after?.relationships[i] ?? []
            let oldKeys = Set(old.map(\.key)), newKeys = Set(new.map(\.key))
            let removed = old.filter { !newKeys.contains($0.key) }, added = new.filter { !oldKeys.contains($0.key) }
            if !removed.isEmpty || !added.isEmpty {
                result.append(Edge(source: record.id, relationship: relationship, removed: removed, added: added))
            }
        }
        return result
    }

    /// Gives every destination that left or joined a relationship the matching inverse.
    mutating func keepInversesConsistent() {
        // Every change is found before any is applied: inserts, then updates, then deletes.
        var all: [Edge] = []
        for key in insertedKeys { all += edges(nil, state[key]) }
        for key in updatedKeys { all += edges(stored[key], state[key]) }
        for record in deletedRecords { all += edges(record, nil).map { var e = $0; e.sourceIsDeleted = true; return e } }
        for edge in all {
            guard let inverseName = edge.relationship.inverseName else { continue }
            for destination in edge.removed
            where changeInverse(of: destination, inverseName, { $0.removeAll { $0.key == edge.source.key } }) && edge.sourceIsDeleted {
                counters.deleteFixes += 1
            }
            for destination in edge.added {
                guard let record = existing(destination) else {
                    foundDanglingRelation = true
                    problems.append(.conflict(edge.source, reason: "relates through '\(edge.relationship.name)' to \(destination), which does not exist"))
                    continue
                }
                guard schema.entity(record.id.entity, isKindOf: edge.relationship.destinationEntity),
                      let inverseOrdinal = schema.relationshipOrdinal(inverseName, in: record.id.entity),
                      let inverse = schema.entity(named: record.id.entity)?.relationships[inverseOrdinal] else {
                    problems.append(.conflict(edge.source, reason: "relates through '\(edge.relationship.name)' to \(destination), which is not a '\(edge.relationship.destinationEntity)'"))
                    continue
                }
                let list = record.relationships[inverseOrdinal]
                if list.contains(where: { $0.key == edge.source.key }) { continue }
                if inverse.kind.isToMany {
                    changeInverse(of: destination, inverseName) { $0.append(edge.source) }
                } else {
                    changeInverse(of: destination, inverseName) { $0 = [edge.source] }
                    if let previous = list.first,
                       changeInverse(of: previous, edge.relationship.name, { $0.removeAll { $0.key == destination.key } }) {
                        counters.previousOwnerFixes += 1
                    }
                }
            }
        }
    }

    /// The record `id` names as the commit leaves it so far: the one with its key, when that
    /// record's entity is `id.entity` or one of its sub-entities (as ``StorageReader/records(_:)``
    /// finds records).
    private func existing(_ id: RecordID) -> Record? {
        guard let record = state[id.key], schema.entity(record.id.entity, isKindOf: id.entity) else { return nil }
        return record
    }

    /// Changes relationship `name` of the record `id` names, when it exists and has one;
    /// whether that changed anything.
    @discardableResult
    private mutating func changeInverse(of id: RecordID, _ name: String, _ change: (inout [RecordID]) -> Void) -> Bool {
        guard var record = existing(id), let ordinal = schema.relationshipOrdinal(name, in: record.id.entity) else { return false }
        let before = record.relationships[ordinal]
        change(&record.relationships[ordinal])
        guard record.relationships[ordinal] != before else { return false }
        counters.inverseFixes += 1
        state[id.key] = record
        return true
    }

    // MARK: Result

    /// Inserts as they end up, stored records that changed (by key) with the keys that differ,
    /// and deleted records as they were stored.
    func mergedChanges() -> MergedChanges {
        var updates: [RecordReplacement] = []
        for key in stored.keys.sorted() {
            guard let old = stored[key], let new = state[key], !insertedKeys.contains(key) else { continue }
            let keys = differingKeys(old, new)
            if !keys.isEmpty { updates.append(RecordReplacement(old: old, new: new, changedKeys: keys)) }
        }
        return MergedChanges(inserts: insertedKeys.compactMap { state[$0] }, updates: updates, deletes: deletedRecords)
    }

    /// The names of the properties whose values differ; an unordered to-many compares as a set.
    func differingKeys(_ old: Record, _ new: Record) -> Set<String> {
        guard let entity = schema.entity(named: new.id.entity) else { return [] }
        var keys: Set<String> = []
        for (i, attribute) in entity.attributes.enumerated() where old.attributes[i] != new.attributes[i] {
            keys.insert(attribute.name)
        }
        for (i, relationship) in entity.relationships.enumerated()
        where !Self.sameDestinations(old.relationships[i], new.relationships[i], relationship.kind) {
            keys.insert(relationship.name)
        }
        return keys
    }

    static func sameDestinations(_ a: [RecordID], _ b: [RecordID], _ kind: RelationshipKind) -> Bool {
        kind == .toManyUnordered ? Set(a.map(\.key)) == Set(b.map(\.key)) : a.map(\.key) == b.map(\.key)
    }

    private func shapeProblem(_ record: Record) -> StorageError? {
        guard let entity = schema.entity(named: record.id.entity) else { return .unknownEntity(record.id.entity) }
        if record.attributes.count != entity.attributes.count || record.relationships.count != entity.relationships.count {
            return .invalidRequest("record \(record.id) does not match the shape of entity '\(entity.name)'")
        }
        return nil
    }
}

extension ReferenceModel {
    /// Where the two sides of a relationship disagree, or a relationship names a record that does
    /// not exist, one of the wrong entity, or one record twice; empty when the model is consistent (as the merge rules promise after every commit).
    public func relationshipInconsistencies() -> [String] {
        var found: [String] = []
        for key in records.keys.sorted() {
            guard let record = records[key], let entity = schema.entity(named: record.id.entity) else { continue }
            for (i, relationship) in entity.relationships.enumerated() {
                if Set(record.relationships[i].map(\.key)).count != record.relationships[i].count {
                    found.append("\(record.id).\(relationship.name) names a record twice")
                }
                for destination in record.relationships[i] {
                    guard let other = records[destination.key], schema.entity(other.id.entity, isKindOf: destination.entity) else {
                        found.append("\(record.id).\(relationship.name) names \(destination), which does not exist")
                        continue
                    }
                    if !schema.entity(other.id.entity, isKindOf: relationship.destinationEntity) {
                        found.append("\(record.id).\(relationship.name) names \(other.id), which is not a '\(relationship.destinationEntity)'")
                    }
                    guard let inverseName = relationship.inverseName,
                          let inverse = schema.relationshipOrdinal(inverseName, in: other.id.entity) else { continue }
                    if !other.relationships[inverse].contains(where: { $0.key == key }) {
                        found.append("\(record.id).\(relationship.name) has \(other.id), but \(other.id).\(inverseName) lacks \(record.id)")
                    }
                }
            }
        }
        return found
    }
}
