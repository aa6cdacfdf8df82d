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

    /// Runs `body` with the stack, then lets the stack go; returns `fallback` when the stack is
    /// already gone (a second call). Called by one thread at a time.
    func run<R>(otherwise fallback: @autoclosure () -> R, _ body: (DataStack) -> R) -> R {
        guard let stack else { return fallback() }
        let result = body(stack)
        self.stack = nil
        return result
    }
}
