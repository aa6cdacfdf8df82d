/// Told when a monitored object's stored values change or when it is deleted. Every method has
/// an empty default.
public protocol ObjectObserver: AnyObject {
    /// The monitored type.
    associatedtype ObjectEntityType: CoreStoreObject

    /// A commit changed the object; `didUpdateObject` follows.
    func objectMonitor(_ monitor: ObjectMonitor<ObjectEntityType>, willUpdateObject object: ObjectEntityType)
    /// A commit changed exactly the stored keys in `changedPersistentKeys`.
    func objectMonitor(_ monitor: ObjectMonitor<ObjectEntityType>, didUpdateObject object: ObjectEntityType, changedPersistentKeys: Set<String>)
    /// A commit deleted the object; `object` shows its last values.
    func objectMonitor(_ monitor: ObjectMonitor<ObjectEntityType>, didDeleteObject object: ObjectEntityType)
}

extension ObjectObserver {
    /// Does nothing.
    public func objectMonitor(_ monitor: ObjectMonitor<ObjectEntityType>, willUpdateObject object: ObjectEntityType) {}
    /// Does nothing.
    public func objectMonitor(_ monitor: ObjectMonitor<ObjectEntityType>, didUpdateObject object: ObjectEntityType, changedPersistentKeys: Set<String>) {}
    /// Does nothing.
    public func objectMonitor(_ monitor: ObjectMonitor<ObjectEntityType>, didDeleteObject object: ObjectEntityType) {}
}

/// What one commit did to a monitored object.
public enum ObjectChange: Sendable, Hashable {
    /// These stored keys changed value.
    case updated(changedPersistentKeys: Set<String>)
    /// The object was deleted.
    case deleted
}
