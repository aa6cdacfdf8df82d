import CoreStoreStorage

/// A fetch resolved against the model and the attached stores: what each store is asked.
struct ResolvedFetch {
    let entity: EntityMetadata
    let stores: [AttachedStore]
    let schema: StoreSchema
    /// What each store is asked: the whole window when one store answers alone. Read it for a
    /// store with ``request(for:)``.
    let storeRequest: FetchRequest
    /// Whether the stores' answers are combined (several stores, or a transaction's pending
    /// changes overlaid) and then sorted and windowed here.
    let combines: Bool
    let overlaysPendingChanges: Bool

    /// What `store` is asked: the filter names only the objects it holds (see
    /// ``StoreTaggedRecords``).
    func request(for store: AttachedStore) -> FetchRequest {
        guard let predicate = storeRequest.predicate else { return storeRequest }
        var request = storeRequest
        request.predicate = StoreTaggedRecords.predicate(predicate, in: store.id)
        return request
    }
}

extension ObjectContext {
    /// Resolves a fetch once: the entity, the stores that hold it, a request the schema
    /// accepts.
    func resolve(_ spec: CoreStoreFetchRequest) throws(CoreStoreError) -> ResolvedFetch? {
        let target = try gateway.target(of: spec)
        let entity = target.entity, stores = target.stores, schema = target.schema
        let overlay = spec.tweaks.includesPendingChanges && !isReadOnly && hasChanges
        let combines = overlay || stores.count > 1
        let limit = spec.tweaks.fetchLimit > 0 ? spec.tweaks.fetchLimit : nil
        let request = FetchRequest(
            entity: entity.name, includesSubentities: spec.tweaks.includesSubentities,
            predicate: spec.predicate, sortDescriptors: spec.sortDescriptors,
            limit: combines ? nil : limit, offset: combines ? 0 : spec.tweaks.fetchOffset
        )
        return ResolvedFetch(
            entity: entity, stores: stores, schema: schema, storeRequest: request,
            combines: combines, overlaysPendingChanges: overlay
        )
    }

    /// Asks each store (outside the context's lock).
    private func readStores(_ fetch: ResolvedFetch) throws(CoreStoreError) -> [(AttachedStore, [Record])] {
        var answers: [(AttachedStore, [Record])] = []
        answers.reserveCapacity(fetch.stores.count)
        for store in fetch.stores {
            let request = fetch.request(for: store)
            let records = try gateway.read(store) { reader in
                try reader.fetch(request).completed(for: request, schema: store.schema)
            }
            answers.append((store, records))
        }
        return answers
    }

    /// Asks the one store of a fetch that is not combined, telling it which records' objects
    /// the context holds (``FetchRequest/knownRecords``): the store may answer those by
    /// identifier alone. `nil` when the backend left stages to the core, whose filter and sort
    /// would need the values (the contract forbids omitting them then; the fetch is read again
    /// without the hint).
    private func readStore(_ fetch: ResolvedFetch, _ store: AttachedStore, knownRecords: KnownRecordKeys) throws(CoreStoreError) -> [Record]? {
        var request = fetch.request(for: store)
        request.knownRecords = knownRecords
        return try gateway.read(store) { reader -> [Record]? in
            let result = try reader.fetch(request)
            guard result.pending.isEmpty else { return nil }
            return result.records
        }
    }

    /// Combines the stores' answers with the transaction's pending changes, in the requested
    /// order and window (call with the lock held).
    private func combine(_ answers: [(AttachedStore, [Record])], _ fetch: ResolvedFetch, _ spec: CoreStoreFetchRequest) throws(CoreStoreError) -> [(AttachedStore, Record)] {
        var results: [(AttachedStore, Record)] = []
        for (store, records) in answers {
            for record in records {
                if fetch.overlaysPendingChanges {
                    let id = ObjectID(storeID: store.id, recordID: record.id)
                    if changed[id] != nil || deleted[id] != nil { continue }
                    if let state = registered(id), state.isDeleted { continue }
                    if !recordDeletes.isEmpty && recordDeletes.contains(id) { continue }
                }
                results.append((store, record))
            }
        }
        guard fetch.combines else { return results }
        if fetch.overlaysPendingChanges {
            let candidates = inserted + changed.objects
            // Per store: an evaluator, and the filter as that store reads it.
            var evaluators: [ObjectIdentifier: (PredicateEvaluator, RecordPredicate?)] = [:]
            for state in candidates where !state.isDeleted && fetch.stores.contains(where: { $0 === state.store }) {
                let (evaluator, predicate) = evaluators[ObjectIdentifier(state.store)]
                    ?? (PredicateEvaluator(schema: fetch.schema, resolver: pendingResolver(for: state.store)), spec.predicate(in: state.store.id))
                evaluators[ObjectIdentifier(state.store)] = (evaluator, predicate)
                let matchesEntity = spec.tweaks.includesSubentities
                    ? runtime.storeKind(state.entity.name, isKindOf: fetch.entity.name)
                    : state.entity.name == fetch.entity.name
                guard matchesEntity else { continue }
                let record = state.record
                do {
                    if let predicate, try !evaluator.evaluate(predicate, on: record) { continue }
                } catch {
                    throw CoreStoreError.wrap(error)
                }
                results.append((state.store, record))
            }
        }
        do {
            try RecordSorter(schema: fetch.schema, sortDescriptors: fetch.storeRequest.sortDescriptors).sort(&results) { $0.1 }
        } catch {
            throw CoreStoreError.wrap(error)
        }
        let limit = spec.tweaks.fetchLimit > 0 ? spec.tweaks.fetchLimit : nil
        return RecordWindow.apply(results, offset: spec.tweaks.fetchOffset, limit: limit)
    }

    /// Runs a fetch: each store answers (natively or in part) outside the lock, then pending
    /// changes of a transaction are overlaid and the combined result is ordered and windowed
    /// with the reference semantics.
    func fetchRecords(_ spec: CoreStoreFetchRequest) throws(CoreStoreError) -> [(AttachedStore, Record)] {
        guard let fetch = try resolve(spec) else { return [] }
        let answers = try readStores(fetch)
        return try lock.locked { () throws(CoreStoreError) in try combine(answers, fetch, spec) }
    }

    /// Fetches objects of `O` (or its sub-entities).
    ///
    /// Storage is read outside the lock; registering takes it once. A commit merged in between
    /// reaches the new objects through the merge log, so none starts older than a merge.
    func fetchObjects<O: CoreStoreObject>(_ spec: CoreStoreFetchRequest, as resultType: O.Type) throws(CoreStoreError) -> [O] {
        guard let fetch = try resolve(spec) else { return [] }
        let objects: [CoreStoreObject]
        if !fetch.combines, fetch.stores.count == 1, let hinted = try fetchSkippingKnown(fetch, from: fetch.stores[0]) {
            objects = hinted
        } else {
            objects = try fetchReadingAll(fetch, spec)
        }
        // Every entity fetched is `O`'s or a sub-entity's, whose class is `O` or a subclass; an
        // array of class references has the same representation whatever the element class.
        // (Made as `[CoreStoreObject]` by non-generic code: appending to an `[O]` here, in
        // unspecialized generic code, would look up `Array<O>`'s metadata for every row.) A fetch
        // that can return records of its own entity only made every object of that entity's
        // class: one check of the class answers for all of them.
        let oneEntity = !fetch.storeRequest.includesSubentities || !fetch.schema.hasSubentities(fetch.entity.name)
        if oneEntity && fetch.entity.type is O.Type {
            return unsafeBitCast(objects, to: [O].self)
        }
        if objects.allSatisfy({ ObjectIdentifier(Swift.type(of: $0)) == ObjectIdentifier(O.self) || $0 is O }) {
            return unsafeBitCast(objects, to: [O].self)
        }
        return objects.compactMap { $0 as? O }
    }

    /// A single store's fetch that tells the store which records' objects the context holds,
    /// so that it need not decode their values again (a repeated fetch, a fetch of objects a
    /// list already shows). `nil` when the answer cannot be used: the backend left stages to
    /// the core, or an object the hint promised was gone at registration (which the sweep
    /// rules out while reads are under way, see ``finishRegistrations(callerReads:heldByCaller:)``).
    private func fetchSkippingKnown(_ fetch: ResolvedFetch, from store: AttachedStore) throws(CoreStoreError) -> [CoreStoreObject]? {
        let start = lock.withLock { () -> (ReadTicket, KnownRecordKeys)? in
            guard let known = knownRecordKeys(of: store), !known.isEmpty else { return nil }
            return (beginRead(), known)
        }
        guard let start else { return nil }
        let (ticket, known) = start
        var records: [Record]?
        do {
            records = try readStore(fetch, store, knownRecords: known)
        } catch {
            lock.withLock { endRead(ticket) }
            throw error
        }
        return lock.withLock { () -> [CoreStoreObject]? in
            defer { endRead(ticket) }
            guard var records else { return nil }
            let registered = registerObjects(&records, in: store, readSince: ticket, valuesMayBeOmitted: true)
            return registered.isComplete ? registered.objects : nil
        }
    }

    /// A fetch whose stores return every record whole, combined with pending changes and
    /// across stores when it must be.
    private func fetchReadingAll(_ fetch: ResolvedFetch, _ spec: CoreStoreFetchRequest) throws(CoreStoreError) -> [CoreStoreObject] {
        let ticket = lock.withLock { beginRead() }
        var answers: [(AttachedStore, [Record])]
        do {
            answers = try readStores(fetch)
        } catch {
            lock.withLock { endRead(ticket) }
            throw error
        }
        return try lock.locked { () throws(CoreStoreError) -> [CoreStoreObject] in
            defer { endRead(ticket) }
            if !fetch.combines, let store = answers.first?.0 {
                // One store answered the whole request: its records, as they are.
                return registerObjects(&answers[0].1, in: store, readSince: ticket, valuesMayBeOmitted: false).objects
            }
            let results = try combine(answers, fetch, spec)
            return registerObjects(results, readSince: ticket)
        }
    }

    /// The objects for the records one store returned (call with the lock held), made on
    /// first sight. A new object takes its record's values out of `records`, which the caller
    /// drops next. With `valuesMayBeOmitted` (a fetch that told the store the keys the context
    /// holds), a record without values is answered by the object held or merged since the
    /// read began; when neither exists the result is not complete, and the caller reads again.
    private func registerObjects(_ records: inout [Record], in store: AttachedStore, readSince ticket: ReadTicket, valuesMayBeOmitted: Bool) -> (objects: [CoreStoreObject], isComplete: Bool) {
        reserveRegistrations(records.count)
        var objects: [CoreStoreObject] = []
        objects.reserveCapacity(records.count)
        // The keys of the objects made, which become known together at the end.
        var madeKeys: [Int64] = []
        madeKeys.reserveCapacity(records.count)
        var isComplete = true
        beginRegistrationBatch()
        // In place: no record is copied out of the array, and none is retained on its way into
        // a new object (see ``CoreStoreObject/RawObject/takesRecord``).
        records.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            for i in buffer.indices {
                let record = base + i
                let key = record.pointee.id.key
                if valuesMayBeOmitted {
                    // Most records of such a fetch are those of objects held: one lookup.
                    if let held = registeredObject(key: key, in: store) {
                        // Handed over: one retain of the held object (for the result), where
                        // a copy retained it twice and released it once — each an atomic
                        // write to an object other threads may be reading too.
                        objects.append(consume held)
                        continue
                    }
                    if record.pointee.holdsNoValues, needsValues(ofRecordAt: record, in: store, readSince: ticket) {
                        isComplete = false
                        return
                    }
                }
                if let object = object(forRecordAt: record, in: store, readSince: ticket, takingRecord: true) {
                    // Handed over, not copied: no retain and release of each object made.
                    objects.append(consume object)
                    madeKeys.append(key)
                }
            }
        }
        endRegistrationBatch(keys: madeKeys, of: store)
        finishRegistrations(callerReads: 1, heldByCaller: objects.count)
        return (objects, isComplete)
    }

    /// The objects for the combined answers of several stores (call with the lock held).
    private func registerObjects(_ results: [(AttachedStore, Record)], readSince ticket: ReadTicket) -> [CoreStoreObject] {
        reserveRegistrations(results.count)
        var objects: [CoreStoreObject] = []
        objects.reserveCapacity(results.count)
        for (store, record) in results {
            if let object = object(for: record, in: store, readSince: ticket) { objects.append(object) }
        }
        finishRegistrations(callerReads: 1, heldByCaller: objects.count)
        return objects
    }

    /// The identifiers of the matches, in order.
    func fetchObjectIDs(_ spec: CoreStoreFetchRequest) throws(CoreStoreError) -> [ObjectID] {
        guard let fetch = try resolve(spec) else { return [] }
        return try fetchIdentifiers(fetch, spec).map { ObjectID(storeID: $0.0.id, recordID: $0.1) }
    }

    /// The matches' stores and identifiers, in order (or, with `inAnyOrder`, in whatever order
    /// the store finds them cheapest). A store that answers alone reads only the identifiers
    /// (``StorageReader/recordIDs(_:schema:)``); combined answers need the records.
    func fetchIdentifiers(_ fetch: ResolvedFetch, _ spec: CoreStoreFetchRequest, inAnyOrder: Bool = false) throws(CoreStoreError) -> [(AttachedStore, RecordID)] {
        if !fetch.combines, let store = fetch.stores.first {
            let request = fetch.request(for: store)
            let ids = try gateway.read(store) { reader in
                inAnyOrder ? try reader.unorderedRecordIDs(request, schema: store.schema) : try reader.recordIDs(request, schema: store.schema)
            }
            return ids.map { (store, $0) }
        }
        let answers = try readStores(fetch)
        return try lock.locked { () throws(CoreStoreError) in try combine(answers, fetch, spec) }.map { ($0.0, $0.1.id) }
    }

    /// Counts matches; asks the store directly when nothing needs combining.
    func fetchCount(_ spec: CoreStoreFetchRequest) throws(CoreStoreError) -> Int {
        guard let fetch = try resolve(spec) else { return 0 }
        if !fetch.combines, let store = fetch.stores.first {
            let request = FetchRequest(
                entity: fetch.entity.name, includesSubentities: spec.tweaks.includesSubentities, predicate: spec.predicate(in: store.id),
                limit: spec.tweaks.fetchLimit > 0 ? spec.tweaks.fetchLimit : nil, offset: spec.tweaks.fetchOffset
            )
            return try gateway.read(store) { try $0.count(request) }
        }
        return try fetchRecords(spec).count
    }

    /// Resolves related records for predicates on pending objects: this context's version
    /// first (pending edits included, deleted objects gone), then the store's committed record.
    private func pendingResolver(for store: AttachedStore) -> PredicateEvaluator.Resolver {
        let box = UncheckedBox(self)
        return { id in
            let context = box.value
            let local: Record?? = context.lock.withLock {
                let objectID = ObjectID(storeID: store.id, recordID: id)
                guard let state = context.registered(objectID) else {
                    return context.recordDeletes.contains(objectID) ? .some(nil) : .none
                }
                return .some(state.isDeleted ? nil : state.record)
            }
            if let local { return local }
            if id.isTemporary { return nil }
            return try context.gateway.read(store) { try $0.records([id]) }.first ?? nil
        }
    }
}

/// Carries a non-`Sendable` value across a boundary the framework itself serializes.
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
