import CoreStoreStorage

/// What one commit changed in one store, with identifiers already permanent. The `DataStack`
/// merges it into its read-only context and hands it to observers.
///
/// A class, not a struct: a commit hands it to the read-only context and to every monitor,
/// and copying the struct retained and released each of its arrays every time. Whoever makes
/// one fills it in before handing it on; nobody changes it after that.
final class StoreCommit: @unchecked Sendable {
    let store: AttachedStore
    let sequence: UInt64
    var inserted: [Record]
    var updated: [Record]
    /// The keys each of ``updated`` changed, in the same order (an array beside it, not a
    /// dictionary by identifier: a commit of many updates builds it without hashing, and the
    /// one reader, an object monitor, finds its record in ``updated`` anyway).
    var updatedKeys: [Set<String>]
    var deleted: [RecordID]
    /// The last committed values of the deleted records, in the order of ``deleted``: all of
    /// them when the stack has observers, else maybe only the first ones (the store did not
    /// read the others: see ``ChangeSet/returnsDeletedRecords``).
    var deletedRecords: [Record]
    /// The committing transaction's `sourceIdentifier`.
    let sourceIdentifier: SourceIdentifierBox

    init(
        store: AttachedStore, sequence: UInt64, inserted: [Record], updated: [Record], updatedKeys: [Set<String>],
        deleted: [RecordID], deletedRecords: [Record], sourceIdentifier: SourceIdentifierBox = .none
    ) {
        self.store = store
        self.sequence = sequence
        self.inserted = inserted
        self.updated = updated
        self.updatedKeys = updatedKeys
        self.deleted = deleted
        self.deletedRecords = deletedRecords
        self.sourceIdentifier = sourceIdentifier
    }
}

/// The pending changes of one store, gathered by ``ObjectContext/prepareCommit(returnsDeletedRecords:)``.
private struct StoreChangeGroup {
    let store: AttachedStore
    var inserts: [ObjectState] = []
    /// The records of ``inserts``, made as each object is visited.
    var insertRecords: [Record] = []
    var updates: [(ObjectState, Set<String>)] = []
    var deletes: [ObjectState] = []
    /// The records deleted without objects (see ``RecordDeletes``), in key order.
    var deletedIDs: [RecordID] = []
}

/// The change set for one store and the objects it came from.
///
/// A class, not a struct: a commit passes it along several loops, and copying the struct
/// retained and released each of its arrays and the whole change set's every time.
final class PreparedStoreChanges {
    let store: AttachedStore
    let changes: ChangeSet
    let insertedStates: [ObjectState]
    let updatedStates: [ObjectState]
    let deletedStates: [ObjectState]

    init(store: AttachedStore, changes: ChangeSet, insertedStates: [ObjectState], updatedStates: [ObjectState], deletedStates: [ObjectState]) {
        self.store = store
        self.changes = changes
        self.insertedStates = insertedStates
        self.updatedStates = updatedStates
        self.deletedStates = deletedStates
    }
}

extension ObjectContext {
    /// Applies delete rules, validates relationships and groups the pending changes by store.
    /// Throws (changing nothing stored) on misuse reported earlier, `deny` rules and count
    /// bounds.
    ///
    /// With `returnsDeletedRecords` false nobody needs the deleted records' last values (no
    /// monitor observes the stack), and stores may leave out the ones they did not read (see
    /// ``ChangeSet/returnsDeletedRecords``).
    func prepareCommit(returnsDeletedRecords: Bool = true) throws(CoreStoreError) -> [PreparedStoreChanges] {
        lock.lock()
        defer { lock.unlock() }
        if let error = pendingErrors.first { throw error }
        try applyDeleteRules()

        // One group per store, in the order the stores first appear (a stack has a handful of
        // stores at most, so a list searched in order: no table to allocate and hash into).
        var groups: [StoreChangeGroup] = []
        func group(_ store: AttachedStore) -> Int {
            if let index = groups.firstIndex(where: { $0.store === store }) { return index }
            groups.append(StoreChangeGroup(store: store))
            if groups.count == 1 { groups[0].insertRecords.reserveCapacity(inserted.count) }
            return groups.count - 1
        }
        // One pass over the inserted objects, each record made while its object is at hand: a
        // large commit's objects are out of the cache, and every pass over them costs a miss
        // per object. While every object goes to the first store's group, none deleted, the
        // group's objects are `inserted` itself, shared rather than copied one by one.
        var insertsAreAllInFirstGroup = true
        // The temporary keys of objects inserted and deleted again: never stored, so nothing
        // stored may refer to them.
        var unstoredKeys: Set<Int64> = []
        for (position, state) in inserted.enumerated() {
            let index: Int?
            if state.isDeleted {
                index = nil
                unstoredKeys.insert(state.recordID.key)
            } else {
                try validateCounts(state)
                index = group(state.store)
            }
            if insertsAreAllInFirstGroup && index != 0 {
                insertsAreAllInFirstGroup = false
                if !groups.isEmpty { groups[0].inserts = Array(inserted[..<position]) }
            }
            guard let index else { continue }
            if !insertsAreAllInFirstGroup { groups[index].inserts.append(state) }
            groups[index].insertRecords.append(state.record)
        }
        if insertsAreAllInFirstGroup && !groups.isEmpty { groups[0].inserts = inserted }
        if !changed.isEmpty {
            var keySets = ChangedKeySets()
            for state in changed.objects.sorted(by: { $0.recordID.key < $1.recordID.key }) where !state.isDeleted {
                guard let committed = state.committed else { continue }
                let keys = keySets.keys(from: committed, to: state.record, of: state.entity)
                if keys.isEmpty { continue }
                try validateCounts(state)
                groups[group(state.store)].updates.append((state, keys))
            }
        }
        if !deleted.isEmpty {
            for state in deleted.values.sorted(by: { $0.recordID.key < $1.recordID.key }) where state.hasCommittedVersion {
                groups[group(state.store)].deletes.append(state)
            }
        }
        for records in recordDeletes.stores where !records.isEmpty {
            groups[group(records.store)].deletedIDs = records.sortedIDs
        }
        if !unstoredKeys.isEmpty {
            for group in groups {
                for state in group.inserts { try checkNoReference(from: state, to: unstoredKeys) }
                for (state, _) in group.updates { try checkNoReference(from: state, to: unstoredKeys) }
            }
        }
        return groups.map { group in
            let (ins, ups, dels) = (group.inserts, group.updates, group.deletes)
            // Deleted objects hand their committed records over as the stored versions; the
            // store reads those of the records deleted without objects if it needs them.
            let deleteBases = dels.compactMap(\.committed)
            var deletes = deleteBases.map(\.id)
            if !group.deletedIDs.isEmpty {
                deletes = deletes.isEmpty ? group.deletedIDs : (deletes + group.deletedIDs).sorted { $0.key < $1.key }
            }
            var changes = ChangeSet(
                inserts: group.insertRecords,
                updates: ups.map { RecordUpdate(record: $0.0.record, changedKeys: $0.1, base: $0.0.committed) },
                deletes: deletes,
                baseSequence: baseSequences[group.store.id],
                deleteBases: deleteBases
            )
            changes.returnsDeletedRecords = returnsDeletedRecords
            return PreparedStoreChanges(store: group.store, changes: changes, insertedStates: ins, updatedStates: ups.map(\.0), deletedStates: dels)
        }
    }

    /// Makes the context match what was written: permanent identifiers, new committed
    /// versions, no pending changes. Returns what each store committed.
    ///
    /// `endsContext`: the context ends right after (a closure transaction), so its identity map
    /// is about to be dropped; the inserted objects take their permanent identifiers without
    /// being registered under them first.
    /// `othersFailed`: the stores of `prepared` saved their parts but a later store failed;
    /// only their pending changes are cleared.
    func finishCommit(_ prepared: [PreparedStoreChanges], infos: [CommitInfo], endsContext: Bool = false, othersFailed: Bool = false) -> [StoreCommit] {
        lock.lock()
        defer { lock.unlock() }
        var commits: [StoreCommit] = []
        for (part, info) in zip(prepared, infos) {
            let storeID = part.store.id
            let merged = info.changes
            // Inserts come back in change-set order (the storage contract), each with its
            // permanent identifier: no lookup in `info.permanentIDs` per object. Relationships
            // that point at inserted objects get their permanent identifiers from the records
            // adopted below: the store rewrites them once, for every record it wrote, and only
            // this commit's objects can hold them.
            func assign(_ permanent: RecordID, to state: ObjectState) {
                if endsContext {
                    state.updateValues { state.recordID = permanent }
                } else {
                    rekey(state, from: ObjectID(storeID: storeID, recordID: state.recordID), to: ObjectID(storeID: storeID, recordID: permanent))
                }
            }
            // The merged inserts are read in place, not copied one by one. Each object takes its
            // permanent identifier and adopts what was written in one visit (see `adopt` below).
            // The gateway hands over one merged insert per inserted object, in order.
            merged.inserts.withUnsafeBufferPointer { inserts in
                guard let base = inserts.baseAddress else { return }
                for (i, state) in zip(inserts.indices, part.insertedStates) {
                    if state.recordID.key != inserts[i].id.key { assign(inserts[i].id, to: state) }
                    state.adopt(recordAt: base + i)
                }
            }
            for state in part.updatedStates { state.updateValues { state.markValuesCommitted() } }
            for state in part.deletedStates { state.updateValues { state.committed = nil } }
            // What the store wrote is the transaction's changes merged with what was stored:
            // the objects of this context take those values. Inserts come back in change-set
            // order; the updates of the change set come first among the merged updates, in
            // change-set order (minus those that changed nothing), then the records the store
            // changed to keep inverses consistent.
            // Its values stay exactly what is stored only if this commit followed directly.
            if let base = baseSequences[storeID], info.sequence == base + 1 {
                baseSequences[storeID] = info.sequence
            } else {
                baseSequences[storeID] = nil
            }
            // The updates in place too, each new record passed by address.
            var next = 0
            merged.updates.forEachElementAddress { update in
                let new = RecordReplacement.newRecord(at: update)
                let key = new.pointee.id.key
                while next < part.updatedStates.count, part.updatedStates[next].recordID.key != key { next += 1 }
                if next < part.updatedStates.count {
                    part.updatedStates[next].adopt(recordAt: new)
                } else if let state = registered(ObjectID(storeID: storeID, recordID: new.pointee.id)) {
                    state.adopt(recordAt: new)
                }
            }
            commits.append(StoreCommit(
                store: part.store, sequence: info.sequence,
                inserted: merged.inserts, updated: merged.updates.map(\.new),
                updatedKeys: merged.updates.map(\.changedKeys), deleted: merged.deletedIDs, deletedRecords: merged.deletes,
                sourceIdentifier: sourceIdentifier
            ))
        }
        if !othersFailed || endsContext {
            clearPendingChanges(contextEnds: endsContext)
        } else {
            clearPendingChanges(of: prepared.map(\.store))
        }
        return commits
    }

    /// Forgets the pending changes of `stores` alone: a commit saved them, then failed in
    /// another store, whose changes stay pending for the transaction to commit again.
    private func clearPendingChanges(of stores: [AttachedStore]) {
        func isSaved(_ store: AttachedStore) -> Bool { stores.contains { $0 === store } }
        for (id, state) in deleted where isSaved(state.store) { dropRegistration(id) }
        deleted = deleted.filter { !isSaved($0.value.store) }
        for state in inserted where state.isDeleted && isSaved(state.store) {
            dropRegistration(ObjectID(storeID: state.store.id, recordID: state.recordID))
        }
        inserted.removeAll { isSaved($0.store) }
        for state in changed.objects where isSaved(state.store) {
            _ = changed.removeObject(storeID: state.store.id, key: state.recordID.key)
        }
        recordDeletes.removeAll(of: stores)
        resetUndoHistory()
    }

    /// Forgets pending changes after a commit (objects stay registered, deleted ones go).
    /// `contextEnds`: the context is about to be dropped with its identity map, so the inserted
    /// objects are not visited again to unregister the deleted ones (after a large commit, a
    /// cache miss each).
    func clearPendingChanges(contextEnds: Bool = false) {
        for (id, _) in deleted { dropRegistration(id) }
        if !contextEnds {
            for state in inserted where state.isDeleted { dropRegistration(ObjectID(storeID: state.store.id, recordID: state.recordID)) }
        }
        inserted.removeAll()
        changed.removeAll()
        deleted.removeAll()
        recordDeletes.removeAll()
        pendingErrors.removeAll()
        resetUndoHistory()
    }

    /// Throws when a relationship of `state` still holds an object inserted and deleted again
    /// before the commit (`keys`): a relationship without an inverse is not cleared when its
    /// destination is deleted, and a reference to a record that is never stored would dangle.
    private func checkNoReference(from state: ObjectState, to keys: Set<Int64>) throws(CoreStoreError) {
        for (i, destinations) in state.relationships.enumerated() {
            guard let gone = destinations.first(where: { $0.isTemporary && keys.contains($0.key) }) else { continue }
            let relationship = state.entity.description.relationships[i].name
            throw .invalidObject(message: "'\(state.entity.name).\(relationship)' still refers to a '\(gone.entity)' object that was deleted before the commit; remove it from the relationship before deleting it")
        }
    }

    private func validateCounts(_ state: ObjectState) throws(CoreStoreError) {
        for (i, relationship) in state.entity.description.relationships.enumerated() where relationship.kind.isToMany {
            let count = state.relationships[i].count
            if count < relationship.minCount || (relationship.maxCount > 0 && count > relationship.maxCount) {
                throw .relationshipCountViolation(entity: state.entity.name, relationship: relationship.name, count: count, minimum: relationship.minCount, maximum: relationship.maxCount)
            }
        }
    }

    /// Cascades deletes, enforces `deny`, and removes deleted objects from the inverse side of
    /// every remaining object.
    private func applyDeleteRules() throws(CoreStoreError) {
        var queue = Array(deleted.values)
        var index = 0
        while index < queue.count {
            let state = queue[index]
            index += 1
            for (i, relationship) in state.entity.description.relationships.enumerated() where relationship.deleteRule == .cascade {
                for id in state.relationships[i] {
                    if let destination = self.state(for: id, in: state.store), delete(destination) { queue.append(destination) }
                }
            }
        }
        for state in queue {
            for (i, relationship) in state.entity.description.relationships.enumerated() where relationship.deleteRule == .deny {
                for id in state.relationships[i] {
                    if let destination = self.state(for: id, in: state.store), !destination.isDeleted {
                        throw .deleteDenied(entity: state.entity.name, relationship: relationship.name)
                    }
                }
            }
        }
        for state in queue {
            for (i, _) in state.entity.description.relationships.enumerated() {
                guard let inverse = state.entity.inverseOrdinals[i] else { continue }
                for id in state.relationships[i] {
                    guard let destination = self.state(for: id, in: state.store), !destination.isDeleted else { continue }
                    let ids = destination.relationships[inverse]
                    if ids.contains(state.recordID) {
                        let remaining = ids.filter { $0 != state.recordID }
                        // Journaled like any change: if the commit then fails, undoing the
                        // delete gives the destination its relationship back.
                        journalWillChange(destination)
                        destination.updateValues { destination.relationships[inverse] = remaining }
                        markChanged(destination)
                    }
                }
            }
        }
    }
}
