import CoreStoreStorage

/// Why the reference model rejected a change set: every error the contract allows a store to
/// report for it (a change set with two problems may be rejected for either).
public struct ReferenceRejection: Error, Sendable, Hashable {
    /// The acceptable errors, in the order the model found them; never empty.
    public var candidates: [StorageError]

    /// Whether `error` is one of the acceptable errors. Errors whose payload the contract fixes
    /// (missing record, uniqueness violation, unknown entity or key) must match exactly; the
    /// others (`invalidRequest`, `engine`, …) by case only.
    public func accepts(_ error: StorageError) -> Bool {
        candidates.contains { ReferenceModel.errorsMatch(expected: $0, actual: error) }
    }
}

/// A deliberately simple model of a store, written for the differential runner only: a dictionary
/// of records by key, the next key and the commit sequence. It applies the contract's rules
/// directly, without indexes or snapshots, so that its answers are easy to trust. Commits merge
/// property by property with what the model holds, by its own plain implementation of the
/// merge rules (`ReferenceCommit`), never by `ChangeMerger`: the two check each other.
public struct ReferenceModel: Sendable {
    /// The schema the model holds records of.
    public let schema: StoreSchema
    /// Every record by its key.
    public private(set) var records: [Int64: Record] = [:]
    /// The key the next inserted record receives.
    public private(set) var nextKey: Int64 = 1
    /// The number of successful commits.
    public private(set) var sequence: UInt64 = 0
    /// The identifiers of the records deleted so far, oldest first.
    public private(set) var deleted: [RecordID] = []

    /// An empty model for `schema`.
    public init(schema: StoreSchema) {
        self.schema = schema
    }

    /// The record with this identifier (same key and same entity), if any.
    public func record(_ id: RecordID) -> Record? {
        guard let record = records[id.key], record.id.entity == id.entity else { return nil }
        return record
    }

    // MARK: Writing

    /// How often each merge path was taken by the commits so far, to show what a run exercised.
    public private(set) var counters = MergeCounters()

    /// Applies `changes` all or nothing, as `StorageInterface/write(_:)` must, merged property
    /// by property with what the model holds (see `ReferenceCommit`); the commit info carries
    /// the merged changes a store must report.
    public mutating func apply(_ changes: ChangeSet) -> Result<CommitInfo, ReferenceRejection> {
        let (resolved, permanentIDs) = changes.assigningPermanentIDs(startingAt: nextKey)
        var commit = ReferenceCommit(schema: schema, stored: records)
        commit.delete(resolved.deletes)
        commit.update(resolved.updates)
        commit.insert(resolved.inserts)
        commit.keepInversesConsistent()
        var problems = commit.problems
        let merged = commit.mergedChanges()
        var next = records
        for record in merged.deletes { next[record.id.key] = nil }
        for replacement in merged.updates { next[replacement.new.id.key] = replacement.new }
        for record in merged.inserts { next[record.id.key] = record }
        if problems.isEmpty { problems = uniquenessViolations(next) }
        if !problems.isEmpty {
            if commit.foundDanglingRelation { counters.danglingRejections += 1 }
            return .failure(ReferenceRejection(candidates: problems))
        }
        records = next
        deleted += resolved.deletes
        nextKey += Int64(permanentIDs.count)
        sequence += 1
        counters.add(commit.counters)
        return .success(CommitInfo(sequence: sequence, permanentIDs: permanentIDs, changes: merged))
    }

    /// Every unique constraint broken in `state`: for each constraint, every value tuple (without
    /// `nil`) held by two records in the constraint's scope (its owner and the owner's descendants).
    private func uniquenessViolations(_ state: [Int64: Record]) -> [StorageError] {
        var violations: [StorageError] = []
        for owner in schema.entities {
            for attributes in owner.uniqueConstraints {
                var seen: [[Value]: Int64] = [:]
                var reported: Set<[Value]> = []
                for key in state.keys.sorted() {
                    guard let record = state[key], schema.entity(record.id.entity, isKindOf: owner.name) else { continue }
                    let tuple = attributes.map { name in
                        schema.attributeOrdinal(name, in: record.id.entity).map { record.attributes[$0] } ?? .null
                    }
                    if tuple.contains(.null) { continue }
                    if seen[tuple] != nil {
                        if reported.insert(tuple).inserted {
                            violations.append(.uniqueConstraintViolation(entity: owner.name, attributes: attributes, values: tuple))
                        }
                    } else {
                        seen[tuple] = key
                    }
                }
            }
        }
        return violations
    }

    // MARK: Reading

    /// The records with these identifiers, `nil` where none exists.
    public func lookUp(_ ids: [RecordID]) -> [Record?] {
        ids.map(record)
    }

    /// The records `request` selects, filtered, sorted and windowed with the reference semantics.
    public func fetch(_ request: FetchRequest) throws -> [Record] {
        var selected = try matching(entity: request.entity, includesSubentities: request.includesSubentities, predicate: request.predicate)
        try RecordSorter(schema: schema, sortDescriptors: request.sortDescriptors).sort(&selected)
        return RecordWindow.apply(selected, offset: request.offset, limit: request.limit)
    }

    /// The number of records `request` selects (window applied, sort ignored).
    public func count(_ request: FetchRequest) throws -> Int {
        let n = try matching(entity: request.entity, includesSubentities: request.includesSubentities, predicate: request.predicate).count
        let afterOffset = max(0, n - max(request.offset, 0))
        return request.limit.map { min(max($0, 0), afterOffset) } ?? afterOffset
    }

    /// The rows of an aggregate request, computed by `AggregateEvaluator`.
    public func aggregate(_ request: AggregateRequest) throws -> [[Value]] {
        let evaluator = AggregateEvaluator(schema: schema)
        try evaluator.validate(request)
        let selected = try matching(entity: request.entity, includesSubentities: request.includesSubentities, predicate: request.predicate)
        return try evaluator.rows(request, records: selected)
    }

    /// The records of `entity` (and its descendants when asked) that satisfy `predicate`, in key order.
    private func matching(entity: String, includesSubentities: Bool, predicate: RecordPredicate?) throws -> [Record] {
        guard schema.entity(named: entity) != nil else { throw StorageError.unknownEntity(entity) }
        let entities = Set(includesSubentities ? schema.entityAndDescendants(entity) : [entity])
        let snapshot = records
        let evaluator = PredicateEvaluator(schema: schema) { id in
            guard let record = snapshot[id.key], record.id.entity == id.entity else { return nil }
            return record
        }
        var result: [Record] = []
        for key in snapshot.keys.sorted() {
            guard let record = snapshot[key], entities.contains(record.id.entity) else { continue }
            if let predicate, try !evaluator.evaluate(predicate, on: record) { continue }
            result.append(record)
        }
        return result
    }

    // MARK: Comparing

    /// Whether a store's `actual` error is the `expected` one: by case, and by payload where the
    /// contract fixes it.
    public static func errorsMatch(expected: StorageError, actual: StorageError) -> Bool {
        switch (expected, actual) {
        case (.recordNotFound(let a), .recordNotFound(let b)):
            return a.key == b.key && a.entity == b.entity
        case (.uniqueConstraintViolation, .uniqueConstraintViolation),
             (.unknownEntity, .unknownEntity),
             (.unknownKey, .unknownKey):
            return expected == actual
        case (.notOpen, .notOpen), (.invalidRequest, .invalidRequest), (.incompatibleStore, .incompatibleStore), (.engine, .engine), (.conflict, .conflict):
            return true
        default:
            return false
        }
    }
}
