import CoreStoreStorage

extension ObjectContext {
    /// Runs a fetch: each store answers (natively or in part), pending changes of a transaction
    /// are overlaid, and the combined result is ordered and windowed with the reference
    /// semantics.
    func fetchRecords(_ spec: FetchSpecification) throws(CoreStoreError) -> [(AttachedStore, Record)] {
        if let error = spec.error { throw error }
        guard let stack else { throw .transactionMisuse(message: "the DataStack no longer exists") }
        let entity = try stack.entity(for: spec.entityType)
        let stores = try stack.stores(holding: entity, configurations: spec.configurations, forInsert: false)
        guard let schema = stores.first?.schema else { return [] }
        try RequestValidator(schema: schema).validate(entity: entity.name, predicate: spec.predicate, sorts: spec.sortDescriptors)

        return try lock.locked { () throws(CoreStoreError) -> [(AttachedStore, Record)] in
            let overlay = spec.tweaks.includesPendingChanges && !isReadOnly && hasChanges
            let combine = overlay || stores.count > 1
            let limit = spec.tweaks.fetchLimit > 0 ? spec.tweaks.fetchLimit : nil
            let request = FetchRequest(
                entity: entity.name, includesSubentities: spec.tweaks.includesSubentities,
                predicate: spec.predicate, sortDescriptors: spec.sortDescriptors,
                limit: combine ? nil : limit, offset: combine ? 0 : spec.tweaks.fetchOffset
            )
            var results: [(AttachedStore, Record)] = []
            for store in stores {
                do {
                    let records = try store.storage.read { reader in
                        try reader.fetch(request).completed(for: request, schema: store.schema)
                    }
                    for record in records {
                        if overlay {
                            let id = ObjectID(storeID: store.id, recordID: record.id)
                            if changed[id] != nil || deleted[id] != nil { continue }
                            if let state = registered(id)?.cs_state, state.isDeleted { continue }
                        }
                        results.append((store, record))
                    }
                } catch {
                    throw CoreStoreError.wrap(error)
                }
            }
            guard combine else { return results }
            if overlay {
                let candidates = insertionOrder.compactMap { inserted[$0] } + Array(changed.values)
                var evaluators: [ObjectIdentifier: PredicateEvaluator] = [:]
                for state in candidates where !state.isDeleted && stores.contains(where: { $0 === state.store }) {
                    let evaluator = evaluators[ObjectIdentifier(state.store)] ?? PredicateEvaluator(schema: schema, resolver: pendingResolver(for: state.store))
                    evaluators[ObjectIdentifier(state.store)] = evaluator
                    let matchesEntity = spec.tweaks.includesSubentities
                        ? runtime.storeKind(state.entity.name, isKindOf: entity.name)
                        : state.entity.name == entity.name
                    guard matchesEntity else { continue }
                    let record = state.record
                    do {
                        if let predicate = spec.predicate, try !evaluator.evaluate(predicate, on: record) { continue }
                    } catch {
                        throw CoreStoreError.wrap(error)
                    }
                    results.append((state.store, record))
                }
            }
            do {
                try RecordSorter(schema: schema, sortDescriptors: request.sortDescriptors).sort(&results) { $0.1 }
            } catch {
                throw CoreStoreError.wrap(error)
            }
            return RecordWindow.apply(results, offset: spec.tweaks.fetchOffset, limit: limit)
        }
    }

    /// Fetches objects.
    ///
    /// Reading and registering happen under one hold of the context's lock, so a commit's merge
    /// can never fall between them and leave a new object with values older than the merge.
    func fetchObjects(_ spec: FetchSpecification) throws(CoreStoreError) -> [CoreStoreObject] {
        try lock.locked { () throws(CoreStoreError) -> [CoreStoreObject] in
            let records = try fetchRecords(spec)
            reserveRegistrations(records.count)
            return records.compactMap { store, record in object(for: record, in: store) }
        }
    }

    /// Counts matches; asks the store directly when nothing needs combining.
    func fetchCount(_ spec: FetchSpecification) throws(CoreStoreError) -> Int {
        if let error = spec.error { throw error }
        guard let stack else { throw .transactionMisuse(message: "the DataStack no longer exists") }
        let entity = try stack.entity(for: spec.entityType)
        let stores = try stack.stores(holding: entity, configurations: spec.configurations, forInsert: false)
        let overlay = spec.tweaks.includesPendingChanges && !isReadOnly && hasChanges
        if stores.count == 1, !overlay, let store = stores.first {
            try RequestValidator(schema: store.schema).validate(entity: entity.name, predicate: spec.predicate, sorts: [])
            let request = FetchRequest(
                entity: entity.name, includesSubentities: spec.tweaks.includesSubentities, predicate: spec.predicate,
                limit: spec.tweaks.fetchLimit > 0 ? spec.tweaks.fetchLimit : nil, offset: spec.tweaks.fetchOffset
            )
            do {
                return try store.storage.read { try $0.count(request) }
            } catch {
                throw CoreStoreError.wrap(error)
            }
        }
        return try fetchRecords(spec).count
    }

    /// Resolves related records for predicates on pending objects: this context's version
    /// first (pending edits included, deleted objects gone), then the store's committed record.
    private func pendingResolver(for store: AttachedStore) -> PredicateEvaluator.Resolver {
        let box = UncheckedBox(self)
        return { id in
            let context = box.value
            let local: ObjectState?? = context.lock.withLock {
                guard let state = context.registered(ObjectID(storeID: store.id, recordID: id))?.cs_state else { return .none }
                return .some(state.isDeleted ? nil : state)
            }
            if let local { return local?.record }
            if id.isTemporary { return nil }
            return try store.storage.read { try $0.records([id]) }.first ?? nil
        }
    }
}

/// Carries a non-`Sendable` value across a boundary the framework itself serializes.
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
