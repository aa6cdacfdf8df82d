import CoreStoreStorage

/// What a monitored list shows — entity, filter, order, stores — and how a commit changes it.
///
/// Runs on the committing thread inside the stack's commit lock, where the stores show exactly
/// the commit being examined.
struct ListQuery {
    let specification: CoreStoreFetchRequest
    let entity: EntityMetadata
    let stores: [AttachedStore]
    let sortDescriptors: [RecordSortDescriptor]
    let ordering: ListOrdering
    /// The entities whose values the filter reads through key paths (the listed entity too,
    /// for a path like `friends.name`); see ``inverseLinks`` for what a change to one re-examines.
    let relatedEntities: Set<String>
    /// The members shown, from the request's `fetchOffset` and `fetchLimit`; `nil` shows every
    /// member. The query itself always follows every matching object.
    let window: (offset: Int, limit: Int?)?
    /// For each related entity, the ordinals of its relationships that lead back to listed
    /// objects: a change to a related record re-examines only the listed objects it points
    /// back at. `nil` when a key path crosses more than one relationship or one without an
    /// inverse; a related change then re-reads the whole list.
    let inverseLinks: [String: [Int]]?
    private let gateway: StorageGateway
    private let runtime: RuntimeSchema

    /// Validates the request. With a section key, the sort keys must start with it (it is
    /// added, ascending, when there are no sort keys at all).
    init(_ specification: CoreStoreFetchRequest, sectionKey: String?, stack: DataStack) throws(CoreStoreError) {
        var specification = specification
        if let sectionKey {
            if specification.sortDescriptors.isEmpty {
                specification.sortDescriptors = [RecordSortDescriptor(key: sectionKey, ascending: true)]
            } else if specification.sortDescriptors[0].key != sectionKey {
                throw .invalidPredicate(message: "a sectioned list must be ordered by its section key '\(sectionKey)' first, but its first sort key is '\(specification.sortDescriptors[0].key)'")
            }
        }
        let tweaks = specification.tweaks
        if tweaks.fetchLimit < 0 || tweaks.fetchOffset < 0 {
            throw .invalidPredicate(message: "a list's fetchLimit and fetchOffset cannot be negative (fetchLimit \(tweaks.fetchLimit), fetchOffset \(tweaks.fetchOffset))")
        }
        self.window = tweaks.fetchLimit == 0 && tweaks.fetchOffset == 0 ? nil : (tweaks.fetchOffset, tweaks.fetchLimit > 0 ? tweaks.fetchLimit : nil)
        specification.tweaks.fetchLimit = 0
        specification.tweaks.fetchOffset = 0
        let target = try stack.gateway.target(of: specification)
        let entity = target.entity, stores = target.stores
        self.specification = specification
        self.entity = entity
        self.stores = stores
        self.sortDescriptors = specification.sortDescriptors
        self.ordering = ListOrdering(order: RecordOrder(specification.sortDescriptors))
        self.runtime = try stack.runtime()
        var related = Set<String>()
        if let predicate = specification.predicate, let schema = stores.first?.schema {
            Self.collectRelatedEntities(predicate, from: entity.name, schema: schema, into: &related)
        }
        self.relatedEntities = related
        self.inverseLinks = related.isEmpty ? [:] : stores.first.flatMap { store in
            specification.predicate.flatMap { Self.inverseLinks(of: $0, from: entity.name, schema: store.schema) }
        }
        self.gateway = stack.gateway
    }

    /// A list state for `entries` (every member, in any order) and, for a request with a
    /// window, the window the state shows.
    func makeState(entries: [ListEntry], isSectioned: Bool) -> (ListState, ListWindow?) {
        guard let window else { return (ListState(ordering: ordering, isSectioned: isSectioned, entries: entries), nil) }
        let listWindow = ListWindow(offset: window.offset, limit: window.limit, ordering: ordering, entries: entries)
        return (ListState(ordering: ordering, isSectioned: isSectioned, entries: listWindow.visibleEntries), listWindow)
    }

    /// Every member now, from the stores.
    func currentEntries(in context: ObjectContext) throws(CoreStoreError) -> [ListEntry] {
        var ordinals = SortOrdinals()
        return try context.fetchRecords(specification).map { store, record throws(CoreStoreError) in try entry(for: record, in: store, ordinals: &ordinals) }
    }

    /// The values known of a member whose record is gone and was never read by the stack (a
    /// delete made behind it): its sort keys, every other field at its initial value.
    func lastKnownRecord(of entry: ListEntry) -> Record? {
        guard let store = stores.first(where: { $0.id == entry.id.storeID }),
              let entity = runtime.entitiesByName[entry.id.recordID.entity] else { return nil }
        var record = entity.initialRecord(id: entry.id.recordID)
        for (descriptor, value) in zip(sortDescriptors, entry.sortValues) {
            if let ordinal = store.schema.attributeOrdinal(descriptor.key, in: entity.name) { record.attributes[ordinal] = value }
        }
        return record
    }

    /// What `commits` mean for the list.
    func delta(for commits: [StoreCommit], context: ObjectContext) throws(CoreStoreError) -> ListDelta {
        var delta = ListDelta()
        var touchesRelated = false
        // Listed objects a changed related record points back at, by store.
        var pointedAt: [ObjectIdentifier: (AttachedStore, Set<RecordID>)] = [:]
        func relatedChanged(_ record: Record, in store: AttachedStore) {
            touchesRelated = true
            guard let ordinals = inverseLinks?[record.id.entity] else { return }
            for ordinal in ordinals where ordinal < record.relationships.count {
                pointedAt[ObjectIdentifier(store), default: (store, [])].1.formUnion(record.relationships[ordinal])
            }
        }
        for commit in commits where stores.contains(where: { $0 === commit.store }) {
            let evaluator = PredicateEvaluator(schema: commit.store.schema, resolver: resolver(for: commit.store))
            let predicate = specification.predicate(in: commit.store.id)
            for record in commit.inserted + commit.updated {
                // A listed entity can be a related one too (a filter through `friends.name`).
                if relatedEntities.contains(record.id.entity) { relatedChanged(record, in: commit.store) }
                if isListed(record.id.entity) { try examine(record, in: commit.store, predicate: predicate, evaluator: evaluator, into: &delta) }
            }
            for record in commit.updated where isListed(record.id.entity) {
                delta.updated.insert(ObjectID(storeID: commit.store.id, recordID: record.id))
            }
            for (recordID, record) in zip(commit.deleted, commit.deletedRecords) {
                if isListed(recordID.entity) {
                    let id = ObjectID(storeID: commit.store.id, recordID: recordID)
                    delta.examined.insert(id)
                    delta.records[id] = record
                }
                if relatedEntities.contains(recordID.entity) { relatedChanged(record, in: commit.store) }
            }
        }
        if touchesRelated, inverseLinks != nil {
            // Only the listed objects the changed related records point back at can change.
            for (store, ids) in pointedAt.values {
                let unexamined = ids.filter { isListed($0.entity) && !delta.examined.contains(ObjectID(storeID: store.id, recordID: $0)) }
                if unexamined.isEmpty { continue }
                let evaluator = PredicateEvaluator(schema: store.schema, resolver: resolver(for: store))
                let predicate = specification.predicate(in: store.id)
                let ordered = unexamined.sorted { $0.key < $1.key }
                let records = try gateway.read(store) { try $0.records(ordered) }
                for (id, record) in zip(ordered, records) {
                    guard let record else {
                        delta.examined.insert(ObjectID(storeID: store.id, recordID: id))
                        continue
                    }
                    try examine(record, in: store, predicate: predicate, evaluator: evaluator, into: &delta)
                }
            }
        } else if touchesRelated {
            let updated = delta.updated, records = delta.records
            delta = ListDelta(records: records, isComplete: true)
            delta.updated = updated
            for entry in try currentEntries(in: context) { delta.matches[entry.id] = entry }
        }
        return delta
    }

    /// Decides whether a listed record is a member after the commit, and where.
    /// `predicate`: the list's filter as `store` reads it (``CoreStoreFetchRequest/predicate(in:)``).
    private func examine(_ record: Record, in store: AttachedStore, predicate: RecordPredicate?, evaluator: PredicateEvaluator, into delta: inout ListDelta) throws(CoreStoreError) {
        let id = ObjectID(storeID: store.id, recordID: record.id)
        delta.examined.insert(id)
        delta.records[id] = record
        do {
            if let predicate, try !evaluator.evaluate(predicate, on: record) { return }
        } catch {
            throw CoreStoreError.wrap(error)
        }
        var ordinals = SortOrdinals()
        delta.matches[id] = try entry(for: record, in: store, ordinals: &ordinals)
    }

    private func isListed(_ entityName: String) -> Bool {
        specification.tweaks.includesSubentities ? runtime.storeKind(entityName, isKindOf: entity.name) : entityName == entity.name
    }

    /// The attribute ordinals of the sort keys for the entity and store seen last: a list's
    /// records are nearly always of one entity, so they are looked up once, not once per record.
    private struct SortOrdinals {
        var storeID: UInt64 = 0
        var entity = ""
        var ordinals: [Int]?
    }

    private func entry(for record: Record, in store: AttachedStore, ordinals cache: inout SortOrdinals) throws(CoreStoreError) -> ListEntry {
        if cache.ordinals == nil || cache.storeID != store.id || cache.entity != record.id.entity {
            var ordinals: [Int] = []
            ordinals.reserveCapacity(sortDescriptors.count)
            for descriptor in sortDescriptors {
                guard let ordinal = store.schema.attributeOrdinal(descriptor.key, in: record.id.entity) else {
                    throw .invalidPredicate(message: "'\(descriptor.key)' is not an attribute of \(record.id.entity)")
                }
                ordinals.append(ordinal)
            }
            cache = SortOrdinals(storeID: store.id, entity: record.id.entity, ordinals: ordinals)
        }
        var values: [Value] = []
        values.reserveCapacity(sortDescriptors.count)
        for ordinal in cache.ordinals ?? [] { values.append(record.attributes[ordinal]) }
        return ListEntry(id: ObjectID(storeID: store.id, recordID: record.id), sortValues: values)
    }

    private func resolver(for store: AttachedStore) -> PredicateEvaluator.Resolver {
        let gateway = gateway
        return { id in try gateway.read(store) { try $0.records([id]) }.first ?? nil }
    }

    /// The inverse relationships that lead from related records back to listed ones, or `nil`
    /// when some key path of `predicate` crosses more than one relationship, or one without an
    /// inverse.
    private static func inverseLinks(of predicate: RecordPredicate, from entity: String, schema: StoreSchema) -> [String: [Int]]? {
        var links: [String: [Int]] = [:]
        func visit(_ predicate: RecordPredicate) -> Bool {
            switch predicate {
            case .constant:
                return true
            case .not(let inner):
                return visit(inner)
            case .and(let parts), .or(let parts):
                return parts.allSatisfy(visit)
            case .comparison(let comparison):
                let path = comparison.keyPath
                guard path.count >= 2 else { return true }
                var crossed: [RelationshipDescription] = []
                for candidate in schema.entityAndDescendants(entity) {
                    if let relationship = schema.entity(named: candidate)?.relationships.first(where: { $0.name == path[0] }) {
                        crossed.append(relationship)
                    }
                }
                if crossed.isEmpty { return true }
                for relationship in crossed {
                    guard let inverse = relationship.inverseName else { return false }
                    for destination in schema.entityAndDescendants(relationship.destinationEntity) {
                        // A second relationship before the last key: more than one hop.
                        if path.count > 2, schema.relationshipOrdinal(path[1], in: destination) != nil { return false }
                        guard let ordinal = schema.relationshipOrdinal(inverse, in: destination) else { return false }
                        if !(links[destination]?.contains(ordinal) ?? false) { links[destination, default: []].append(ordinal) }
                    }
                }
                return true
            }
        }
        return visit(predicate) ? links : nil
    }

    /// The destination entities (and their sub-entities) of every relationship a key path of
    /// `predicate` crosses.
    private static func collectRelatedEntities(_ predicate: RecordPredicate, from entity: String, schema: StoreSchema, into result: inout Set<String>) {
        switch predicate {
        case .constant:
            return
        case .not(let inner):
            collectRelatedEntities(inner, from: entity, schema: schema, into: &result)
        case .and(let parts), .or(let parts):
            for part in parts { collectRelatedEntities(part, from: entity, schema: schema, into: &result) }
        case .comparison(let comparison):
            var current = [entity]
            for (i, key) in comparison.keyPath.enumerated() {
                let isLast = i == comparison.keyPath.count - 1
                var next: [String] = []
                for name in current {
                    for candidate in schema.entityAndDescendants(name) {
                        guard let description = schema.entity(named: candidate),
                              let relationship = description.relationships.first(where: { $0.name == key }) else { continue }
                        // The last key of a path names a relationship compared by identity or
                        // counted: only its own record's value matters.
                        if !isLast { next.append(relationship.destinationEntity) }
                    }
                }
                for name in next { result.formUnion(schema.entityAndDescendants(name)) }
                current = next
                if current.isEmpty { break }
            }
        }
    }
}
