import Foundation

/// The stack a background addition works with, let go before the caller hears the outcome: a
/// caller that then drops its last reference to the stack closes the stack's stores at once, so
/// that their files can be added to another stack right away (otherwise the finishing
/// background closure could still hold the stack, and the store, for a moment).
final class AdditionHandle: @unchecked Sendable {
    private var stack: DataStack?

    init(_ stack: DataStack) {
        self.stack = stack
    }

    /// Runs `body` with the stack, then lets the stack go. Called once, by one thread.
    func run<R>(_ body: (DataStack) -> R) -> R {
        guard let stack else { preconditionFailure("AdditionHandle.run called twice") }
        let result = body(stack)
        self.stack = nil
        return result
    }
}
