import CoreStoreStorage

/// What a context looked like before a step that must be all or nothing (one import call):
/// the first saved version of every object the step changes, and how long the lists of
/// insertions and reported errors were. Rolling back restores exactly that.
///
/// Journals nest: a step inside a step (an import inside `update(from:in:)`) keeps its own
/// journal, and on success hands what it saved to the enclosing one.
final class ChangeJournal {
    /// One object's values before the step first changed it.
    struct SavedState {
        let state: ObjectState
        let attributes: [Value]
        let relationships: [[RecordID]]
        let isDeleted: Bool
        let wasChanged: Bool
        let wasDeleted: Bool
    }

    var saved: [ObjectIdentifier: SavedState] = [:]
    let insertionCount: Int
    let pendingErrorCount: Int
    /// Temporary record keys count down: an object whose key is below this one was inserted
    /// during the step, and rolling back drops it, so its values need no saving.
    let firstTemporaryKey: Int64

    init(insertionCount: Int, pendingErrorCount: Int, firstTemporaryKey: Int64) {
        self.insertionCount = insertionCount
        self.pendingErrorCount = pendingErrorCount
        self.firstTemporaryKey = firstTemporaryKey
    }
}

extension ObjectContext {
    /// Runs `step` so that it either completes or leaves the context's objects and pending
    /// changes exactly as they were: if it throws, every change it made is undone (objects it
    /// inserted are dropped and count as deleted) and the error is rethrown.
    func allOrNothing<T>(_ step: () throws -> T) throws -> T {
        let journal = lock.withLock {
            let journal = ChangeJournal(insertionCount: inserted.count, pendingErrorCount: pendingErrors.count, firstTemporaryKey: TemporaryKeys.upcoming)
            journals.append(journal)
            return journal
        }
        do {
            let result = try step()
            lock.withLock { closeJournal(journal, keeping: true) }
            return result
        } catch {
            lock.withLock { closeJournal(journal, keeping: false) }
            throw error
        }
    }

    /// Saves `state`'s values into the innermost journal before its first change in the step.
    /// Call with the lock held, before changing values, `changed` or `deleted`.
    func journalWillChange(_ state: ObjectState) {
        guard let journal = journals.last else { return }
        if state.recordID.isTemporary && state.recordID.key <= journal.firstTemporaryKey { return }
        let key = ObjectIdentifier(state)
        if journal.saved[key] != nil { return }
        journal.saved[key] = savedState(of: state)
    }

    private func closeJournal(_ journal: ChangeJournal, keeping: Bool) {
        guard let index = journals.lastIndex(where: { $0 === journal }) else { return }
        journals.remove(at: index)
        if keeping {
            // The enclosing step must be able to undo what this one did.
            if let outer = journals.last {
                for (key, saved) in journal.saved where outer.saved[key] == nil { outer.saved[key] = saved }
            }
            return
        }
        restore(journal.saved.values)
        if inserted.count > journal.insertionCount {
            for state in inserted[journal.insertionCount...] {
                state.updateValues { state.isDeleted = true }
                dropRegistration(ObjectID(storeID: state.store.id, recordID: state.recordID))
            }
            inserted.removeSubrange(journal.insertionCount...)
        }
        if pendingErrors.count > journal.pendingErrorCount {
            pendingErrors.removeSubrange(journal.pendingErrorCount...)
        }
    }

    /// Puts saved values and pending-change membership back (call with the lock held).
    func restore<S: Sequence>(_ savedStates: S) where S.Element == ChangeJournal.SavedState {
        for saved in savedStates {
            let state = saved.state
            state.updateValues {
                state.attributes = saved.attributes
                state.relationships = saved.relationships
                state.isDeleted = saved.isDeleted
            }
            let id = ObjectID(storeID: state.store.id, recordID: state.recordID)
            changed[id] = saved.wasChanged ? state : nil
            deleted[id] = saved.wasDeleted ? state : nil
        }
    }

    /// `state`'s values and pending-change membership now (call with the lock held).
    func savedState(of state: ObjectState) -> ChangeJournal.SavedState {
        let id = ObjectID(storeID: state.store.id, recordID: state.recordID)
        return ChangeJournal.SavedState(
            state: state, attributes: state.attributes, relationships: state.relationships, isDeleted: state.isDeleted,
            wasChanged: changed[id] != nil, wasDeleted: deleted[id] != nil
        )
    }
}
