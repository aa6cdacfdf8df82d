import Foundation

/// A transaction not bound to a closure or a queue, from ``DataStack/beginUnsafe(supportsUndo:sourceIdentifier:)``.
///
/// Use it from one thread at a time (the caller's responsibility). Commit as often as needed;
/// after each commit its objects stay usable with their permanent identifiers.
public final class UnsafeDataTransaction: BaseDataTransaction {
    /// Lets go of the transaction's objects (they hold their context, the context holds them).
    deinit {
        context.dropAllObjects()
    }

    /// Commits on the stack's transaction queue and reports on the main queue. The commit takes
    /// every pending change there is when it runs and clears them when it ends: leave the
    /// transaction alone until `completion` is called (a change made meanwhile may be cleared
    /// without being saved), or use ``commitAndWait()``.
    public func commit(_ completion: @escaping @MainActor (CoreStoreError?) -> Void = { _ in }) {
        let box = UncheckedBox(self)
        dataStack.transactionQueue.async {
            var failure: CoreStoreError?
            do {
                try box.value.dataStack.commit(box.value.context)
            } catch {
                failure = CoreStoreError.wrap(error)
            }
            let result = failure
            DispatchQueue.main.async { MainActor.assumeIsolated { completion(result) } }
        }
    }

    /// Commits and waits. Throws the commit's error, leaving the pending changes in place (after
    /// a ``CoreStoreError/partialCommit(committedConfigurations:failedConfiguration:error:)``,
    /// only those of the stores that were not saved).
    public func commitAndWait() throws {
        if dataStack.isOnTransactionQueue {
            try dataStack.commit(context)
            return
        }
        var failure: CoreStoreError?
        let box = UncheckedBox(self)
        dataStack.transactionQueue.sync {
            do {
                try box.value.dataStack.commit(box.value.context)
            } catch {
                failure = CoreStoreError.wrap(error)
            }
        }
        if let failure { throw failure }
    }

    /// Discards every uncommitted change: inserted objects disappear, changed and deleted ones
    /// return to their last committed values. The undo history is forgotten.
    public func rollback() {
        context.rollback()
    }

    // MARK: Undo

    /// Reverts the last group of changes (see ``flush()``), when the transaction was begun with
    /// `beginUnsafe(supportsUndo: true)`: changed objects get their values back, objects it
    /// inserted disappear, objects it deleted return. Does nothing otherwise, or when there is
    /// nothing to undo. A commit or a rollback forgets the history.
    public func undo() {
        context.undo()
    }

    /// Makes again the last group of changes ``undo()`` reverted. A new change after an undo
    /// forgets what could be redone.
    public func redo() {
        context.redo()
    }

    /// Ends the current group of changes: the next ``undo()`` reverts what was changed since
    /// the previous flush (or the start), and nothing before.
    public func flush() {
        context.flushUndoStep()
    }

    /// Runs `closure`, then ends the group of changes it made (see ``flush()``).
    public func flush(closure: () throws -> Void) rethrows {
        defer { flush() }
        try closure()
    }
}

extension ObjectContext {
    func rollback() {
        lock.withLock {
            for state in changed.objects { state.restoreCommitted() }
            for state in deleted.values where state.hasCommittedVersion { state.restoreCommitted() }
            for state in inserted {
                state.updateValues { state.isDeleted = true }
                dropRegistration(ObjectID(storeID: state.store.id, recordID: state.recordID))
            }
            inserted.removeAll()
            changed.removeAll()
            deleted.removeAll()
            recordDeletes.removeAll()
            pendingErrors.removeAll()
            for state in allStates() { state.restoreCommitted() }
            resetUndoHistory()
        }
    }
}

extension ObjectState {
    func restoreCommitted() {
        guard let committed else { return }
        updateValues {
            attributes = committed.attributes
            relationships = committed.relationships
            isDeleted = false
            markValuesCommitted()
        }
    }
}
