import Logging

/// Forwards CoreStore's messages to a swift-log `Logger`, so they join your server's logs.
///
/// ```swift
/// CoreStoreDefaults.logger = SwiftLogCoreStoreLogger(Logger(label: "app.persistence"))
/// ```
/// Levels map as trace → `.trace`, notice → `.notice`, warning → `.warning`, fatal → `.critical`;
/// errors log at `.error` and failed assertions at `.critical`, with the source location as
/// metadata.
public struct SwiftLogCoreStoreLogger: CoreStoreLogger {
    /// The swift-log logger receiving the messages.
    public let logger: Logger

    /// Creates a bridge to `logger`.
    public init(_ logger: Logger) {
        self.logger = logger
    }

    /// Forwards a message at the mapped level.
    public func log(level: LogLevel, message: String, fileName: StaticString, lineNumber: Int, functionName: StaticString) {
        logger.log(level: Self.level(level), "\(message)", file: "\(fileName)", function: "\(functionName)", line: UInt(lineNumber))
    }

    /// Forwards an error at `.error`, with the error in the metadata.
    public func log(error: CoreStoreError, message: String, fileName: StaticString, lineNumber: Int, functionName: StaticString) {
        logger.error("\(message)", metadata: ["error": "\(error)"], file: "\(fileName)", function: "\(functionName)", line: UInt(lineNumber))
    }

    /// Forwards a failed assertion at `.critical`.
    public func assert(_ condition: @autoclosure () -> Bool, message: @autoclosure () -> String, fileName: StaticString, lineNumber: Int, functionName: StaticString) {
        guard !condition() else { return }
        logger.critical("Assertion failure: \(message())", file: "\(fileName)", function: "\(functionName)", line: UInt(lineNumber))
    }

    static func level(_ level: LogLevel) -> Logger.Level {
        switch level {
        case .trace: return .trace
        case .notice: return .notice
        case .warning: return .warning
        case .fatal: return .critical
        }
    }
}
