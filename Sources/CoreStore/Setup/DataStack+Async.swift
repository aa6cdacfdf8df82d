import Foundation

extension DataStack {
    /// The `async`/`await` forms of the stack's methods: `try await dataStack.async.perform { … }`.
    public var async: AsyncNamespace { AsyncNamespace(dataStack: self) }

    /// `async` versions of adding stores and running transactions.
    public struct AsyncNamespace: Sendable {
        /// The stack.
        public let dataStack: DataStack

        /// The stack (CoreStore's name for ``dataStack``).
        public var base: DataStack { dataStack }

        /// Adds `storage` without blocking the caller.
        @discardableResult
        public func addStorage<T: StorageInterface>(_ storage: T) async throws -> T {
            let stack = dataStack
            let storage = UncheckedBox(storage)
            return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<UncheckedBox<T>, any Error>) in
                DispatchQueue.global(qos: .userInitiated).async {
                    do {
                        continuation.resume(returning: UncheckedBox(try stack.addStorageAndWait(storage.value)))
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }.value
        }

        /// Runs `task` in a transaction on the stack's queue, commits, and returns its value.
        /// Throws ``CoreStoreError/userCancelled``, ``CoreStoreError/userError(error:)`` or the
        /// commit's error; nothing is saved then.
        @discardableResult
        public func perform<T: Sendable>(_ task: @escaping (AsynchronousDataTransaction) throws -> T) async throws -> T {
            let stack = dataStack
            let task = UncheckedBox(task)
            return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                stack.transactionQueue.async {
                    continuation.resume(with: stack.runTransaction(AsynchronousDataTransaction(dataStack: stack), task.value).mapError { $0 as any Error })
                }
            }
        }
    }
}
