import CoreStoreStorage

extension ObjectContext {
    /// Reads every object this context holds from its store again and merges what is stored
    /// into it: a field the context has not changed takes the stored value, a field it has
    /// changed keeps its pending value (and is now compared with the new stored one when the
    /// transaction commits). An object whose record is gone is marked deleted and forgotten,
    /// with its pending changes. The undo history is forgotten, as after a commit.
    ///
    /// Returns, per store, what changed as a commit would describe it (for the stack's
    /// observers). Storage is read outside the lock.
    func refreshAllObjects() throws(CoreStoreError) -> [StoreCommit] {
        // The committed objects held, by store.
        var order: [ObjectIdentifier] = []
        var groups: [ObjectIdentifier: (store: AttachedStore, states: [ObjectState], ids: [RecordID])] = [:]
        lock.withLock {
            for state in allStates() where state.hasCommittedVersion && !state.isDeleted {
                let key = ObjectIdentifier(state.store)
                if groups[key] == nil { order.append(key); groups[key] = (state.store, [], []) }
                groups[key]!.states.append(state)
                groups[key]!.ids.append(state.recordID)
            }
        }
        var commits: [StoreCommit] = []
        for key in order {
            let (store, states, unordered) = groups[key]!
            let ids = unordered.sorted { $0.key < $1.key }
            let records = try gateway.read(store) { try $0.records(ids) }
            var stored: [Int64: Record] = [:]
            for record in records.compactMap({ $0 }) { stored[record.id.key] = record }
            let commit = StoreCommit(store: store, sequence: store.lastSequence ?? 0, inserted: [], updated: [], updatedKeys: [], deleted: [], deletedRecords: [])
            lock.withLock {
                for state in states {
                    guard let committed = state.committed, !state.isDeleted else { continue }
                    let id = ObjectID(storeID: store.id, recordID: state.recordID)
                    guard let record = stored[state.recordID.key] else {
                        state.updateValues { state.isDeleted = true }
                        dropRegistration(id)
                        changed[id] = nil
                        deleted[id] = nil
                        commit.deleted.append(state.recordID)
                        commit.deletedRecords.append(committed)
                        continue
                    }
                    if record == committed { continue }
                    let keys = ChangedKeySets.keys(from: committed, to: record, of: state.entity.description)
                    state.updateValues {
                        for i in state.attributes.indices where state.attributes[i] == committed.attributes[i] {
                            state.attributes[i] = record.attributes[i]
                        }
                        for i in state.relationships.indices where state.relationships[i] == committed.relationships[i] {
                            state.relationships[i] = record.relationships[i]
                        }
                        state.committed = record
                    }
                    commit.updated.append(record)
                    commit.updatedKeys.append(keys)
                }
                if !commit.updated.isEmpty || !commit.deleted.isEmpty { noteRefreshed(commit) }
            }
            if !commit.updated.isEmpty || !commit.deleted.isEmpty { commits.append(commit) }
        }
        lock.withLock {
            // What the transaction read is no longer what it began with.
            baseSequences = [:]
            resetUndoHistory()
        }
        return commits
    }
}
