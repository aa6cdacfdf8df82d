import CoreStoreStorage

/// The undo and redo steps of one transaction. A step (an undo group) is every change made
/// between two flushes: its journal holds each changed object's values from before the step,
/// and the objects the step inserted. Undoing a step saves the values it leaves, so that
/// redoing puts them back.
final class UndoHistory {
    struct Step {
        let before: ChangeJournal
        let inserted: [ObjectState]
        var after: [ChangeJournal.SavedState] = []
    }

    /// The journal of the step being made (the outermost of the context's journals).
    var open: ChangeJournal?
    var done: [Step] = []
    var undone: [Step] = []
}

extension ObjectContext {
    /// Starts recording undo steps (a new transaction, before any change).
    func enableUndo() {
        lock.withLock {
            undoHistory = UndoHistory()
            openUndoStep()
        }
    }

    /// Ends the step being made, so that the next ``undo()`` reverts it alone.
    func flushUndoStep() {
        lock.withLock {
            guard undoHistory != nil else { return }
            closeUndoStep()
            openUndoStep()
        }
    }

    /// Reverts the last step (ending the one being made first): changed objects get their
    /// values back, inserted ones disappear, deleted ones return.
    func undo() {
        lock.withLock {
            guard let history = undoHistory else { return }
            closeUndoStep()
            if var step = history.done.popLast() {
                step.after = step.before.saved.values.map { savedState(of: $0.state) }
                restore(step.before.saved.values)
                let removed = Set(step.inserted.map(ObjectIdentifier.init))
                for state in step.inserted {
                    state.updateValues { state.isDeleted = true }
                    dropRegistration(ObjectID(storeID: state.store.id, recordID: state.recordID))
                }
                inserted.removeAll { removed.contains(ObjectIdentifier($0)) }
                history.undone.append(step)
            }
            openUndoStep()
        }
    }

    /// Makes the last undone step again.
    func redo() {
        lock.withLock {
            guard let history = undoHistory else { return }
            closeUndoStep()
            if let step = history.undone.popLast() {
                for state in step.inserted {
                    state.updateValues { state.isDeleted = false }
                    register(state, as: ObjectID(storeID: state.store.id, recordID: state.recordID))
                    inserted.append(state)
                }
                restore(step.after)
                history.done.append(step)
            }
            openUndoStep()
        }
    }

    /// Forgets every step (after a commit or a rollback: the values they would restore are
    /// no longer the transaction's pending changes). Call with the lock held.
    func resetUndoHistory() {
        guard let history = undoHistory else { return }
        if let open = history.open { journals.removeAll { $0 === open } }
        history.open = nil
        history.done.removeAll()
        history.undone.removeAll()
        openUndoStep()
    }

    /// Call with the lock held.
    private func openUndoStep() {
        guard let history = undoHistory else { return }
        let journal = ChangeJournal(insertionCount: inserted.count, pendingErrorCount: pendingErrors.count, firstTemporaryKey: TemporaryKeys.upcoming)
        journals.insert(journal, at: 0)
        history.open = journal
    }

    /// Files the step being made unless it changed nothing; a new change forgets the undone
    /// steps. Call with the lock held.
    private func closeUndoStep() {
        guard let history = undoHistory, let journal = history.open else { return }
        journals.removeAll { $0 === journal }
        history.open = nil
        let insertedInStep = inserted.count > journal.insertionCount ? Array(inserted[journal.insertionCount...]) : []
        guard !journal.saved.isEmpty || !insertedInStep.isEmpty else { return }
        history.done.append(UndoHistory.Step(before: journal, inserted: insertedInStep))
        history.undone.removeAll()
    }
}
