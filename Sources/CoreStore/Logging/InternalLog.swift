/// Shorthands the framework uses to reach ``CoreStoreDefaults/logger``.
enum Log {
    static func log(_ level: LogLevel, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: Int = #line, function: StaticString = #function) {
        CoreStoreDefaults.logger.log(level: level, message: message(), fileName: file, lineNumber: line, functionName: function)
    }

    /// Logs `error` and returns it, so call sites read `throw Log.error(…)`.
    @discardableResult
    static func error(_ error: CoreStoreError, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: Int = #line, function: StaticString = #function) -> CoreStoreError {
        CoreStoreDefaults.logger.log(error: error, message: message(), fileName: file, lineNumber: line, functionName: function)
        return error
    }

    static func assert(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: Int = #line, function: StaticString = #function) {
        CoreStoreDefaults.logger.assert(condition(), message: message(), fileName: file, lineNumber: line, functionName: function)
    }
}
