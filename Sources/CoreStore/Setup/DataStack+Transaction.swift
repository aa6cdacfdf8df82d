import Foundation

extension DataStack {
    /// Runs `task` in a new transaction on the stack's transaction queue and commits when it
    /// returns; `completion` receives the closure's value or the error on the main queue.
    ///
    /// Throwing from `task` (including ``AsynchronousDataTransaction/cancel()``) saves nothing:
    /// ``CoreStoreError/userCancelled`` arrives as is, other errors as
    /// ``CoreStoreError/userError(error:)``. Objects returned by `task` belong to the finished
    /// transaction; pass them to `fetchExisting(_:)` before use.
    public func perform<T>(
        asynchronous task: @escaping (AsynchronousDataTransaction) throws -> T,
        sourceIdentifier: Any? = nil,
        completion: @escaping @MainActor (AsynchronousDataTransaction.Result<T>) -> Void
    ) {
        let task = UncheckedBox(task), source = SourceIdentifierBox(value: sourceIdentifier)
        transactionQueue.async { [self] in
            let transaction = AsynchronousDataTransaction(dataStack: self, sourceIdentifier: source.value)
            let result = UncheckedBox(runTransaction(transaction, task.value))
            DispatchQueue.main.async { MainActor.assumeIsolated { completion(result.value) } }
        }
    }

    /// Like ``perform(asynchronous:sourceIdentifier:completion:)`` with separate success and failure handlers.
    public func perform<T>(
        asynchronous task: @escaping (AsynchronousDataTransaction) throws -> T,
        sourceIdentifier: Any? = nil,
        success: @escaping @MainActor (T) -> Void,
        failure: @escaping @MainActor (CoreStoreError) -> Void
    ) {
        perform(asynchronous: task, sourceIdentifier: sourceIdentifier) { result in
            switch result {
            case .success(let value): success(value)
            case .failure(let error): failure(error)
            }
        }
    }

    /// Runs `task` in a new transaction on the stack's transaction queue while the caller
    /// waits, commits, and returns the closure's value.
    ///
    /// The commit is merged into the stack's objects before this returns, whatever
    /// `waitForAllObservers` says; with `true` (the default) monitors and publishers have also
    /// told their observers. Called on a delivery queue, it delivers that queue's notifications
    /// itself before returning (no deadlock); called from inside an observer callback, the
    /// notifications follow that callback. Waiting for a delivery queue that is blocked by the
    /// caller (such as the main queue while the main thread waits for this call) would never
    /// end: pass `false` there.
    /// Calling it from inside another transaction of the same stack would deadlock, so it throws
    /// ``CoreStoreError/transactionMisuse(message:)`` instead.
    @discardableResult @inlinable
    public func perform<T>(synchronous task: (SynchronousDataTransaction) throws -> T, waitForAllObservers: Bool = true, sourceIdentifier: Any? = nil) throws -> T {
        // Inlined into the caller, where `T` is known: only this shell is generic, and the
        // transaction runs through a function that is not, so that no call looks up the
        // metadata of a generic result type at run time (three lookups, about a thousand
        // instructions, per transaction before).
        var value: T?
        try performSynchronously(waitForAllObservers: waitForAllObservers, sourceIdentifier: sourceIdentifier) { transaction in
            value = try task(transaction)
        }
        guard let value else {
            throw CoreStoreError.unknown(message: "perform(synchronous:) ended without the transaction's value")
        }
        return value
    }

    /// ``perform(synchronous:waitForAllObservers:sourceIdentifier:)`` for a task that keeps its
    /// own result: runs it in a new transaction on the transaction queue while the caller waits,
    /// commits, and throws what the task or the commit threw (as a ``CoreStoreError``).
    @usableFromInline
    func performSynchronously(waitForAllObservers: Bool, sourceIdentifier: Any?, _ task: (SynchronousDataTransaction) throws -> Void) throws {
        if isOnTransactionQueue {
            throw Log.error(.transactionMisuse(message: "perform(synchronous:) was called from inside a transaction of the same DataStack"), "Refusing to deadlock.")
        }
        // Dispatch's non-generic `sync`: its generic one looks up the metadata of its result
        // types on every call.
        var result: Result<Void, CoreStoreError> = .failure(.unknown(message: "the transaction did not run"))
        func run() {
            transactionQueue.sync {
                result = runTransaction(SynchronousDataTransaction(dataStack: self, sourceIdentifier: sourceIdentifier), task)
            }
        }
        // Waiting for the observers, this thread delivers the commit's notifications itself
        // (see `ObservationDelivery.deliveringOnThisThread`).
        if waitForAllObservers { ObservationDelivery.deliveringOnThisThread(run) } else { run() }
        try result.get()
    }

    /// Begins a transaction not bound to a closure; commit it with
    /// ``UnsafeDataTransaction/commit(_:)`` or ``UnsafeDataTransaction/commitAndWait()``, as
    /// often as needed. With `supportsUndo` it records its changes in groups for
    /// ``UnsafeDataTransaction/undo()`` and ``UnsafeDataTransaction/redo()`` (a group ends at
    /// each ``UnsafeDataTransaction/flush()``). The observers of its commits receive
    /// `sourceIdentifier`.
    public func beginUnsafe(supportsUndo: Bool = false, sourceIdentifier: Any? = nil) -> UnsafeDataTransaction {
        let transaction = UnsafeDataTransaction(dataStack: self, sourceIdentifier: sourceIdentifier)
        if supportsUndo { transaction.context.enableUndo() }
        return transaction
    }

    /// Runs a closure transaction and commits it; always ends the transaction.
    func runTransaction<Transaction: BaseDataTransaction, T>(_ transaction: Transaction, _ task: (Transaction) throws -> T) -> Result<T, CoreStoreError> {
        defer {
            transaction.context.isActive = false
            transaction.context.dropAllObjects()
        }
        do {
            let value = try task(transaction)
            try commit(transaction.context, endsContext: true)
            return .success(value)
        } catch {
            let wrapped = CoreStoreError.wrap(error)
            if case .userCancelled = wrapped {
                Log.log(.notice, "A transaction was cancelled; nothing was saved.")
            } else if case .partialCommit = wrapped {
                Log.error(wrapped, "A transaction was saved in some of its stores only.")
            } else {
                Log.error(wrapped, "A transaction failed; nothing was saved.")
            }
            return .failure(wrapped)
        }
    }
}
