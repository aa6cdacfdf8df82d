import Foundation

/// The async sequences a publisher hands out: each subscriber gets its own stream, fed with
/// every value sent after it subscribed. Thread-safe.
final class AsyncStreamFanOut<Element: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuations: [UUID: AsyncStream<Element>.Continuation] = [:]
    private var isFinished = false

    /// A new stream; `initial`, when given, is its first value. A fan-out that has finished
    /// hands out streams that end after `initial`.
    func makeStream(initial: Element? = nil) -> AsyncStream<Element> {
        AsyncStream { continuation in
            let token = UUID()
            let finished = lock.withLock {
                if let initial { continuation.yield(initial) }
                if !isFinished { continuations[token] = continuation }
                return isFinished
            }
            if finished {
                continuation.finish()
                return
            }
            continuation.onTermination = { [weak self] _ in
                guard let self else { return }
                self.lock.withLock { _ = self.continuations.removeValue(forKey: token) }
            }
        }
    }

    /// Sends `value` to every stream.
    func send(_ value: Element) {
        for continuation in lock.withLock({ Array(continuations.values) }) { continuation.yield(value) }
    }

    /// Ends every stream, and those handed out later after their initial value.
    func finish() {
        let ended = lock.withLock {
            isFinished = true
            defer { continuations = [:] }
            return Array(continuations.values)
        }
        for continuation in ended { continuation.finish() }
    }

    /// How many streams are subscribed (for tests).
    var subscriberCount: Int {
        lock.withLock { continuations.count }
    }
}
