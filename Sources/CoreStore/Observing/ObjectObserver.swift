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

    /// The update's first callback, with the committing transaction's `sourceIdentifier`.
    func objectMonitor(_ monitor: ObjectMonitor<ObjectEntityType>, willUpdateObject object: ObjectEntityType, sourceIdentifier: Any?)
    /// The update, with the committing transaction's `sourceIdentifier`.
    func objectMonitor(_ monitor: ObjectMonitor<ObjectEntityType>, didUpdateObject object: ObjectEntityType, changedPersistentKeys: Set<String>, sourceIdentifier: Any?)
    /// The deletion, with the committing transaction's `sourceIdentifier`.
    func objectMonitor(_ monitor: ObjectMonitor<ObjectEntityType>, didDeleteObject object: ObjectEntityType, sourceIdentifier: Any?)
}

extension ObjectObserver {
    /// Does nothing.
    public func objectMonitor(_ monitor: ObjectMonitor<ObjectEntityType>, willUpdateObject object: ObjectEntityType) {}
    /// Does nothing.
    public func objectMonitor(_ monitor: ObjectMonitor<ObjectEntityType>, didUpdateObject object: ObjectEntityType, changedPersistentKeys: Set<String>) {}
    /// Does nothing.
    public func objectMonitor(_ monitor: ObjectMonitor<ObjectEntityType>, didDeleteObject object: ObjectEntityType) {}
    /// Calls the form without `sourceIdentifier`.
    public func objectMonitor(_ monitor: ObjectMonitor<ObjectEntityType>, willUpdateObject object: ObjectEntityType, sourceIdentifier: Any?) {
        objectMonitor(monitor, willUpdateObject: object)
    }
    /// Calls the form without `sourceIdentifier`.
    public func objectMonitor(_ monitor: ObjectMonitor<ObjectEntityType>, didUpdateObject object: ObjectEntityType, changedPersistentKeys: Set<String>, sourceIdentifier: Any?) {
        objectMonitor(monitor, didUpdateObject: object, changedPersistentKeys: changedPersistentKeys)
    }
    /// Calls the form without `sourceIdentifier`.
    public func objectMonitor(_ monitor: ObjectMonitor<ObjectEntityType>, didDeleteObject object: ObjectEntityType, sourceIdentifier: Any?) {
        objectMonitor(monitor, didDeleteObject: object)
    }
}

/// What one commit did to a monitored object.
public enum ObjectChange: Sendable, Hashable {
    /// These stored keys changed value.
    case updated(changedPersistentKeys: Set<String>)
    /// The object was deleted.
    case deleted
}
