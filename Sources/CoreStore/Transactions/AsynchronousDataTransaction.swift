/// The transaction of ``DataStack/perform(asynchronous:sourceIdentifier:completion:)``: runs on the stack's
/// transaction queue and commits when its closure returns.
public final class AsynchronousDataTransaction: BaseDataTransaction {
    /// The outcome of an asynchronous transaction.
    public typealias Result<T> = Swift.Result<T, CoreStoreError>

    /// Abandons the transaction: throws ``CoreStoreError/userCancelled``, which ends the closure
    /// and saves nothing. Always `try` it; never `try?`, which would save anyway.
    public func cancel() throws -> Never {
        throw CoreStoreError.userCancelled
    }
}

/// The transaction of ``DataStack/perform(synchronous:waitForAllObservers:sourceIdentifier:)``: runs on the
/// stack's transaction queue while the caller waits, and commits when its closure returns.
public final class SynchronousDataTransaction: BaseDataTransaction {
    /// Abandons the transaction: throws ``CoreStoreError/userCancelled``, which ends the closure
    /// and saves nothing. Always `try` it; never `try?`, which would save anyway.
    public func cancel() throws -> Never {
        throw CoreStoreError.userCancelled
    }
}
