import Foundation
import Testing
@testable import CoreStore

/// A logger that remembers what it was told, for tests of logging behaviour.
final class CapturingLogger: CoreStoreLogger, @unchecked Sendable {
    private let lock = NSLock()
    private var _messages: [String] = []
    /// The logger this one replaced, while installed.
    private var previous: (any CoreStoreLogger)?

    /// A new capturing logger, installed as `CoreStoreDefaults.logger` until ``uninstall()``
    /// (for suites that run their tests one at a time).
    static func installed() -> CapturingLogger {
        let logger = CapturingLogger()
        logger.previous = CoreStoreDefaults.logger
        CoreStoreDefaults.logger = logger
        return logger
    }

    /// Puts back the logger ``installed()`` replaced.
    func uninstall() {
        if let previous { CoreStoreDefaults.logger = previous }
        previous = nil
    }

    var messages: [String] { lock.withLock { _messages } }

    func log(level: LogLevel, message: String, fileName: StaticString, lineNumber: Int, functionName: StaticString) {
        lock.withLock { _messages.append("[\(level)] \(message)") }
    }

    func log(error: CoreStoreError, message: String, fileName: StaticString, lineNumber: Int, functionName: StaticString) {
        lock.withLock { _messages.append("[error] \(message) \(error)") }
    }

    func assert(_ condition: @autoclosure () -> Bool, message: @autoclosure () -> String, fileName: StaticString, lineNumber: Int, functionName: StaticString) {
        if !condition() { lock.withLock { _messages.append("[assert] \(message())") } }
    }
}

/// Creates people with the given names and ages in one transaction.
func insertPeople(_ stack: DataStack, _ people: [(String, Int)]) throws {
    try stack.perform(synchronous: { transaction in
        for (name, age) in people {
            let person = transaction.create(Into<Person>())
            person.name = name
            person.age = age
        }
    })
}

/// Waits for a completion-handler API that reports on the main queue.
func onMain<T: Sendable>(_ start: (@escaping @MainActor @Sendable (T) -> Void) -> Void) async -> T {
    await withCheckedContinuation { continuation in
        start { value in continuation.resume(returning: value) }
    }
}

/// Unwraps a `Result` for tests.
extension Result {
    var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
