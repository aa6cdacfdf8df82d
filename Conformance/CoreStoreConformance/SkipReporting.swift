#if canImport(Testing)
import Testing
#endif

/// Reports a skipped case: cancels the running Swift Testing test (shown as skipped with the
/// reason), or throws `skip` when no test is running.
func reportSkip(_ skip: ConformanceSkip) throws {
    #if canImport(Testing)
    if Test.current != nil {
        try Test.cancel(Comment(rawValue: skip.description))
    }
    #endif
    throw skip
}

#if canImport(Testing)
extension ConformanceCase: CustomTestStringConvertible {
    /// `group/name`, as Swift Testing shows each argument.
    public var testDescription: String { id }
}
#endif
