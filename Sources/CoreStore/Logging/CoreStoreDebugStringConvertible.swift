/// A CoreStore value that describes itself for logs and the debugger, as CoreStore's types do:
/// ``coreStoreDumpString`` is the same text as `debugDescription` (multi-line for a stack or a
/// schema).
public protocol CoreStoreDebugStringConvertible: CustomDebugStringConvertible {
    /// The value's full description for a log or a crash report.
    var coreStoreDumpString: String { get }
}

extension CoreStoreDebugStringConvertible {
    /// `debugDescription`.
    public var coreStoreDumpString: String { debugDescription }
}

extension CoreStoreError: CoreStoreDebugStringConvertible {}
extension DataStack: CoreStoreDebugStringConvertible {}
extension CoreStoreSchema: CoreStoreDebugStringConvertible {}
extension CoreStoreObject: CoreStoreDebugStringConvertible {}
extension ObjectPublisher: CoreStoreDebugStringConvertible {}
extension ObjectMonitor: CoreStoreDebugStringConvertible {}
extension ListMonitor: CoreStoreDebugStringConvertible {}
extension ListPublisher: CoreStoreDebugStringConvertible {}
