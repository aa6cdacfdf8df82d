import Foundation

/// The logger used unless ``CoreStoreDefaults/logger`` is replaced: writes readable lines to
/// standard error at or above ``minimumLevel``.
public struct DefaultLogger: CoreStoreLogger {
    /// Messages below this level are dropped. Errors and assertions are always written.
    public var minimumLevel: LogLevel

    /// Creates a logger that writes messages of `minimumLevel` and above.
    public init(minimumLevel: LogLevel = .warning) {
        self.minimumLevel = minimumLevel
    }

    /// Writes `message` when `level` reaches ``minimumLevel``.
    public func log(level: LogLevel, message: String, fileName: StaticString, lineNumber: Int, functionName: StaticString) {
        guard level >= minimumLevel else { return }
        write("\(Self.symbol(level)) [CoreStore] \(Self.location(fileName, lineNumber, functionName))\n  \(message)")
    }

    /// Writes the error and its context.
    public func log(error: CoreStoreError, message: String, fileName: StaticString, lineNumber: Int, functionName: StaticString) {
        write("⚠️ [CoreStore: Error] \(Self.location(fileName, lineNumber, functionName))\n  \(message)\n  \(error.debugDescription)")
    }

    /// Writes the assertion message when `condition` is false.
    public func assert(_ condition: @autoclosure () -> Bool, message: @autoclosure () -> String, fileName: StaticString, lineNumber: Int, functionName: StaticString) {
        guard !condition() else { return }
        write("❗ [CoreStore: Assertion Failure] \(Self.location(fileName, lineNumber, functionName))\n  \(message())")
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static func symbol(_ level: LogLevel) -> String {
        switch level {
        case .trace: return "🔹"
        case .notice: return "🔸"
        case .warning: return "⚠️"
        case .fatal: return "❗"
        }
    }

    static func location(_ fileName: StaticString, _ lineNumber: Int, _ functionName: StaticString) -> String {
        let file = ("\(fileName)" as NSString).lastPathComponent
        return "\(file):\(lineNumber) \(functionName)"
    }
}
