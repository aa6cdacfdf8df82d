/// How important a log message is.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    /// Step-by-step detail, useful when tracing a problem.
    case trace
    /// Something worth knowing, such as a store being added.
    case notice
    /// Something that may be a mistake, such as a schema without a version lock.
    case warning
    /// A programming error or a failure that stops an operation.
    case fatal

    /// Orders levels by severity.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}
