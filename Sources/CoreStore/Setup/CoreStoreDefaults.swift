import Foundation

/// Process-wide defaults: the logger and the default `DataStack`.
public enum CoreStoreDefaults {
    private static let storage = DefaultsStorage()

    /// Where all framework messages go. Defaults to a ``DefaultLogger``.
    public static var logger: any CoreStoreLogger {
        get { storage.withLock { $0.logger } }
        set { storage.withLock { $0.logger = newValue } }
    }

    /// The stack used by code that does not carry its own. Created on first use with an empty
    /// schema; assign your own stack at start-up.
    public static var dataStack: DataStack {
        get {
            storage.withLock { values in
                if let stack = values.dataStack { return stack }
                let stack = DataStack()
                values.dataStack = stack
                return stack
            }
        }
        set { storage.withLock { $0.dataStack = newValue } }
    }
}

private final class DefaultsStorage: @unchecked Sendable {
    struct Values {
        var logger: any CoreStoreLogger = DefaultLogger()
        var dataStack: DataStack?
    }
    private let lock = NSLock()
    private var values = Values()

    func withLock<T>(_ body: (inout Values) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&values)
    }
}
