import CoreStore

/// The parent's logger: the errors of opening a damaged store are the findings it reports
/// itself, so only fatal messages and violated assertions are printed (to standard error).
struct TortureLogger: CoreStoreLogger {
    private let printer = DefaultLogger(minimumLevel: .fatal)

    func log(level: LogLevel, message: String, fileName: StaticString, lineNumber: Int, functionName: StaticString) {
        printer.log(level: level, message: message, fileName: fileName, lineNumber: lineNumber, functionName: functionName)
    }

    /// Dropped: the run reports what failed, with the error, in its findings.
    func log(error: CoreStoreError, message: String, fileName: StaticString, lineNumber: Int, functionName: StaticString) {}

    func assert(_ condition: @autoclosure () -> Bool, message: @autoclosure () -> String, fileName: StaticString, lineNumber: Int, functionName: StaticString) {
        printer.assert(condition(), message: message(), fileName: fileName, lineNumber: lineNumber, functionName: functionName)
    }
}
