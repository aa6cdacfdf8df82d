/// The destination of everything the framework logs, asserts and reports as an error.
///
/// Set ``CoreStoreDefaults/logger`` to your own implementation to route messages into your
/// application's logging; ``DefaultLogger`` prints to standard error and
/// ``SwiftLogCoreStoreLogger`` forwards to swift-log.
///
/// Implementations may be called from any thread.
public protocol CoreStoreLogger: Sendable {
    /// Logs a message.
    func log(level: LogLevel, message: String, fileName: StaticString, lineNumber: Int, functionName: StaticString)

    /// Logs an error the framework is about to report (throw or pass to a completion).
    func log(error: CoreStoreError, message: String, fileName: StaticString, lineNumber: Int, functionName: StaticString)

    /// Reports a violated expectation, typically a programming error such as editing an object
    /// outside its transaction. The framework recovers from every assertion it makes (it never
    /// crashes the process); the logger decides how loudly to report it.
    func assert(_ condition: @autoclosure () -> Bool, message: @autoclosure () -> String, fileName: StaticString, lineNumber: Int, functionName: StaticString)
}
