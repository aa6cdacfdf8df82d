import CoreStoreStorage

/// What a monitored list shows — entity, filter, order, stores — and how a commit changes it.
///
/// Runs on the committing thread inside the stack's commit lock, where the stores show exactly
/// the commit being examined.
struct ListQuery {
    let specification: FetchSpecification
    let entity: EntityMetadata
    let stores: [AttachedStore]
    let sortDescriptors: [RecordSortDescriptor]
    let ordering: ListOrdering
    /// Entities other than the listed ones whose values the filter reads through key paths; a
    /// commit that changes one of them is answered by evaluating every candidate again.
    let relatedEntities: Set<String>
    private let runtime: RuntimeSchema

    /// Validates the request. With a section key, the sort keys must start with it (it is
    /// added, ascending, when there are no sort keys at all).
    init(_ specification: FetchSpecification, sectionKey: String?, stack: DataStack) throws(CoreStoreError) {
        var specification = specification
        if let sectionKey {
            if specification.sortDescriptors.isEmpty {
                specification.sortDescriptors = [RecordSortDescriptor(key: sectionKey, ascending: true)]
            } else if specification.sortDescriptors[0].key != sectionKey {
                throw .invalidPredicate(message: "a sectioned list must be ordered by its section key '\(sectionKey)' first, but its first sort key is '\(specification.sortDescriptors[0].key)'")
            }
        }
        if specification.tweaks.fetchLimit != 0 || specification.tweaks.fetchOffset != 0 {
            throw .invalidPredicate(message: "list monitors and publishers follow every matching object; fetchLimit and fetchOffset are not supported (fetch a page with fetchAll instead)")
        }
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
    }

    /// Every member now, from the stores.
    func currentEntries(in context: ObjectContext) throws(CoreStoreError) -> [ListEntry] {
        try context.fetchRecords(specification).map { store, record throws(CoreStoreError) in try entry(for: record, in: store) }
    }

    /// What `commits` mean for the list.
    func delta(for commits: [StoreCommit], context: ObjectContext) throws(CoreStoreError) -> ListDelta {
        var delta = ListDelta()
        var touchesRelated = false
        for commit in commits where stores.contains(where: { $0 === commit.store }) {
            let evaluator = PredicateEvaluator(schema: commit.store.schema, resolver: Self.resolver(for: commit.store))
            for record in commit.inserted + commit.updated {
                guard isListed(record.id.entity) else {
                    if relatedEntities.contains(record.id.entity) { touchesRelated = true }
                    continue
                }
                let id = ObjectID(storeID: commit.store.id, recordID: record.id)
                delta.examined.insert(id)
                delta.records[id] = record
                do {
                    if let predicate = specification.predicate, try !evaluator.evaluate(predicate, on: record) { continue }
                } catch {
                    throw CoreStoreError.wrap(error)
                }
                delta.matches[id] = try entry(for: record, in: commit.store)
            }
            for record in commit.updated where isListed(record.id.entity) {
                delta.updated.insert(ObjectID(storeID: commit.store.id, recordID: record.id))
            }
            for (recordID, record) in zip(commit.deleted, commit.deletedRecords) {
                if isListed(recordID.entity) {
                    let id = ObjectID(storeID: commit.store.id, recordID: recordID)
                    delta.examined.insert(id)
                    delta.records[id] = record
                } else if relatedEntities.contains(recordID.entity) {
                    touchesRelated = true
                }
            }
        }
        if touchesRelated {
            let updated = delta.updated, records = delta.records
            delta = ListDelta(records: records, isComplete: true)
            delta.updated = updated
            for entry in try currentEntries(in: context) { delta.matches[entry.id] = entry }
        }
        return delta
    }

    private func isListed(_ entityName: String) -> Bool {
        specification.tweaks.includesSubentities ? runtime.storeKind(entityName, isKindOf: entity.name) : entityName == entity.name
    }

    private func entry(for record: Record, in store: AttachedStore) throws(CoreStoreError) -> ListEntry {
        var values: [Value] = []
        values.reserveCapacity(sortDescriptors.count)
        for descriptor in sortDescriptors {
            guard let ordinal = store.schema.attributeOrdinal(descriptor.key, in: record.id.entity) else {
                throw .invalidPredicate(message: "'\(descriptor.key)' is not an attribute of \(record.id.entity)")
            }
            values.append(record.attributes[ordinal])
        }
        return ListEntry(id: ObjectID(storeID: store.id, recordID: record.id), sortValues: values)
    }

    private static func resolver(for store: AttachedStore) -> PredicateEvaluator.Resolver {
        { id in try store.storage.read { try $0.records([id]) }.first ?? nil }
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
