import CoreStoreStorage

extension ObjectContext {
    /// Records misuse that cannot throw where it happens; the next commit fails with it.
    func report(_ error: CoreStoreError) {
        lock.withLock {
            Log.assert(false, error.description)
            if !isReadOnly { pendingErrors.append(error) }
        }
    }

    /// Whether `state` may be changed now; reports why not otherwise, naming the attribute at
    /// `ordinal` (only then looked up).
    func checkWritable(_ state: ObjectState, attributeOrdinal ordinal: Int) -> Bool {
        if !isReadOnly && isActive && !state.isDeleted { return true }
        return checkWritable(state, key: state.entity.description.attributes[ordinal].name)
    }

    /// Whether `state` may be changed now; reports why not otherwise.
    func checkWritable(_ state: ObjectState, key: String) -> Bool {
        if isReadOnly {
            report(.invalidObject(message: "'\(state.entity.name).\(key)' was set on an object of the DataStack's read-only context; edit it inside a transaction with `transaction.edit(object)`"))
            return false
        }
        if !isActive {
            report(.transactionMisuse(message: "'\(state.entity.name).\(key)' was set after its transaction ended"))
            return false
        }
        if state.isDeleted {
            report(.invalidObject(message: "'\(state.entity.name).\(key)' was set on a deleted object"))
            return false
        }
        return true
    }

    /// Notes that a stored object has pending changes (call with the lock held; every caller
    /// is a change made under it).
    func markChanged(_ state: ObjectState) {
        guard state.hasCommittedVersion else { return }
        changed.insert(state, storeID: state.store.id, key: state.recordID.key)
    }

    /// Replaces the destinations of one relationship and keeps every inverse in step.
    func setRelationship(_ state: ObjectState, ordinal: Int, to objects: [CoreStoreObject]) {
        lock.withLock {
            let description = state.entity.description.relationships[ordinal]
            var newIDs: [RecordID] = []
            var destinations: [RecordID: ObjectState] = [:]
            for object in objects {
                guard let destination = object.cs_state, destination.context === self else {
                    report(.invalidObject(message: "'\(state.entity.name).\(description.name)' was given an object from another context; use `transaction.edit(_:)` or `fetchExisting(_:)` first"))
                    return
                }
                guard destination.store === state.store else {
                    report(.invalidObject(message: "'\(state.entity.name).\(description.name)' cannot relate objects of two different stores"))
                    return
                }
                guard !destination.isDeleted else {
                    report(.invalidObject(message: "'\(state.entity.name).\(description.name)' was given a deleted object"))
                    return
                }
                guard runtime.storeKind(destination.entity.name, isKindOf: description.destinationEntity) else {
                    report(.invalidObject(message: "'\(state.entity.name).\(description.name)' expects '\(description.destinationEntity)' objects, not '\(destination.entity.name)'"))
                    return
                }
                if destinations[destination.recordID] == nil {
                    destinations[destination.recordID] = destination
                    newIDs.append(destination.recordID)
                }
            }
            if !description.kind.isToMany && newIDs.count > 1 { newIDs = [newIDs[0]] }
            let oldIDs = state.relationships[ordinal]
            if oldIDs == newIDs { return }
            journalWillChange(state)
            state.updateValues { state.relationships[ordinal] = newIDs }
            markChanged(state)

            guard let inverseOrdinal = state.entity.inverseOrdinals[ordinal] else { return }
            let newSet = Set(newIDs)
            let oldSet = Set(oldIDs)
            for removedID in oldIDs where !newSet.contains(removedID) {
                if let removed = self.state(for: removedID, in: state.store) {
                    removeDestination(state.recordID, from: removed, ordinal: inverseOrdinal)
                }
            }
            for addedID in newIDs where !oldSet.contains(addedID) {
                guard let added = destinations[addedID] else { continue }
                addDestination(state, to: added, ordinal: inverseOrdinal)
            }
        }
    }

    /// Adds `source` to `target`'s relationship at `ordinal` (an inverse side). If that side is
    /// to-one, its previous destination loses `target` from its own forward relationship.
    private func addDestination(_ source: ObjectState, to target: ObjectState, ordinal: Int) {
        let description = target.entity.description.relationships[ordinal]
        var ids = target.relationships[ordinal]
        if ids.contains(source.recordID) { return }
        if !description.kind.isToMany {
            for previousID in ids {
                if let previous = state(for: previousID, in: target.store), let back = target.entity.inverseOrdinals[ordinal] {
                    removeDestination(target.recordID, from: previous, ordinal: back)
                }
            }
            ids = [source.recordID]
        } else {
            ids.append(source.recordID)
        }
        journalWillChange(target)
        let newIDs = ids
        target.updateValues { target.relationships[ordinal] = newIDs }
        markChanged(target)
    }

    private func removeDestination(_ id: RecordID, from target: ObjectState, ordinal: Int) {
        let ids = target.relationships[ordinal]
        guard ids.contains(id) else { return }
        journalWillChange(target)
        let remaining = ids.filter { $0 != id }
        target.updateValues { target.relationships[ordinal] = remaining }
        markChanged(target)
    }

    /// The state of a related record in this context, loading it if needed.
    func state(for id: RecordID, in store: AttachedStore) -> ObjectState? {
        if let object = registered(ObjectID(storeID: store.id, recordID: id)) { return object }
        return objects(for: [id], in: store).first
    }

    /// Marks an object deleted. Delete rules run at commit, when the whole set is known.
    @discardableResult
    func delete(_ state: ObjectState) -> Bool {
        lock.withLock { markDeleted(state) }
    }

    /// Call with the lock held.
    func markDeleted(_ state: ObjectState) -> Bool {
        guard !state.isDeleted else { return false }
        journalWillChange(state)
        state.updateValues { state.isDeleted = true }
        let id = ObjectID(storeID: state.store.id, recordID: state.recordID)
        changed[id] = nil
        deleted[id] = state
        return true
    }
}

extension RuntimeSchema {
    /// Whether entity `name` is `ancestor` or descends from it.
    func storeKind(_ name: String, isKindOf ancestor: String) -> Bool {
        var current: String? = name
        while let n = current {
            if n == ancestor { return true }
            current = entitiesByName[n]?.description.parentName
        }
        return false
    }
}
