import Foundation
import CoreStoreStorage

/// Follows one object: observers hear which stored keys each commit changed, and when it is
/// deleted. A commit that writes equal values, or touches other objects only, tells nothing.
///
/// ```swift
/// let monitor = try dataStack.monitorObject(person)
/// monitor.addObserver(self)   // an ObjectObserver whose ObjectEntityType is Person
/// ```
/// Notifications arrive on the delivery queue (the main queue by default); observers are held
/// weakly.
public final class ObjectMonitor<O: CoreStoreObject>: @unchecked Sendable, CustomDebugStringConvertible {
    /// The stack whose commits the monitor follows.
    public let dataStack: DataStack
    /// The monitored object's identifier.
    public let objectID: ObjectID
    let delivery: ObservationDelivery
    /// Kept alive here: the delivery only holds its queue weakly.
    let deliveryQueue: DispatchQueue
    private let lock = NSRecursiveLock()
    private var observers: [ObjectObserverBox<O>] = []
    private var sinks: [UUID: ObjectChangeSink] = [:]
    private var deleted = false
    /// The object in the stack's context, held so that the context keeps it (and so re-reads
    /// it in ``DataStack/refreshAndMergeAllObjects()``).
    private var heldObject: CoreStoreObject?

    init(dataStack: DataStack, objectID: ObjectID, deliveryQueue: DispatchQueue) throws(CoreStoreError) {
        if objectID.isTemporary {
            throw .transactionMisuse(message: "an object inserted by a transaction cannot be monitored before the transaction commits")
        }
        self.dataStack = dataStack
        self.objectID = objectID
        self.delivery = ObservationDelivery.on(deliveryQueue)
        self.deliveryQueue = deliveryQueue
        try dataStack.addCommitObserver(self) { () throws(CoreStoreError) in
            let object = dataStack.mainContext.object(for: objectID)
            lock.withLock {
                deleted = object == nil
                heldObject = object
            }
        }
    }

    deinit {
        dataStack.removeCommitObserver(ObjectIdentifier(self))
        for sink in sinks.values { sink.finish() }
    }

    /// The object in the stack's read-only context; `nil` once deleted.
    public var object: O? {
        if isObjectDeleted { return nil }
        return dataStack.fetchExisting(objectID)
    }

    /// Whether the object was deleted.
    public var isObjectDeleted: Bool {
        lock.withLock { deleted }
    }

    /// Adds an observer, held weakly.
    public func addObserver<U: ObjectObserver>(_ observer: U) where U.ObjectEntityType == O {
        lock.withLock {
            observers.removeAll { $0.observer == nil || $0.observer === observer }
            observers.append(ObjectObserverBox(observer))
        }
    }

    /// Removes an observer; it hears nothing more.
    public func removeObserver(_ observer: AnyObject) {
        lock.withLock { observers.removeAll { $0.observer == nil || $0.observer === observer } }
    }

    /// Each change as it is delivered; ends after ``ObjectChange/deleted`` or when the monitor
    /// goes away. Cancelling the iterating task removes the subscription.
    public var changes: AsyncStream<ObjectChange> {
        AsyncStream { continuation in
            let token = addSink(ObjectChangeSink(send: { change, _ in continuation.yield(change) }, finish: { continuation.finish() }))
            continuation.onTermination = { [weak self] _ in
                if let token { self?.removeSink(token) }
            }
        }
    }

    /// Adds a subscriber; `nil` (after finishing it) when the object is already deleted.
    func addSink(_ sink: ObjectChangeSink) -> UUID? {
        let token = UUID()
        let alreadyDeleted = lock.withLock {
            if !deleted { sinks[token] = sink }
            return deleted
        }
        if alreadyDeleted {
            sink.finish()
            return nil
        }
        return token
    }

    func removeSink(_ token: UUID) {
        lock.withLock { _ = sinks.removeValue(forKey: token) }
    }

    private func deliver(_ change: ObjectChange, lastKnown: Record?, source: SourceIdentifierBox) {
        let (observers, sinks) = lock.withLock {
            if change == .deleted { deleted = true; heldObject = nil }
            return (self.observers, Array(self.sinks.values))
        }
        let object = dataStack.mainContext.observedObject(for: objectID, lastKnown: lastKnown) as? O
        switch change {
        case .updated(let keys):
            if let object {
                for box in observers { box.willUpdate(self, object, source.value) }
                for box in observers { box.didUpdate(self, object, keys, source.value) }
            }
        case .deleted:
            if let object {
                for box in observers { box.didDelete(self, object, source.value) }
            }
        }
        for sink in sinks {
            sink.send(change, source)
            if change == .deleted { sink.finish() }
        }
    }

    /// The entity and identifier.
    public var debugDescription: String {
        "ObjectMonitor<\(O.self)>(\(objectID)\(isObjectDeleted ? ", deleted" : ""))"
    }
}

extension ObjectMonitor: CommitObserver {
    func stackDidCommit(_ commits: [StoreCommit]) -> ObservationDelivery? {
        for commit in commits where commit.store.id == objectID.storeID {
            if let index = commit.deleted.firstIndex(where: { $0.key == objectID.recordID.key }) {
                // Present while a monitor observes (see `StoreCommit.deletedRecords`).
                let record = index < commit.deletedRecords.count ? commit.deletedRecords[index] : nil
                let source = commit.sourceIdentifier
                delivery.schedule { [weak self] in self?.deliver(.deleted, lastKnown: record, source: source) }
                return delivery
            }
            if let index = commit.updated.firstIndex(where: { $0.id.key == objectID.recordID.key }),
               case let record = commit.updated[index], case let changed = commit.updatedKeys[index], !changed.isEmpty {
                // Fields declared `affectedByKeyPaths` a changed key change with it.
                let keys = dataStack.mainContext.runtime.entitiesByName[record.id.entity]?.withDependentKeys(changed) ?? changed
                let source = commit.sourceIdentifier
                delivery.schedule { [weak self] in self?.deliver(.updated(changedPersistentKeys: keys), lastKnown: record, source: source) }
                return delivery
            }
        }
        return nil
    }
}

/// One observer of an ``ObjectMonitor``, held weakly.
struct ObjectObserverBox<O: CoreStoreObject> {
    weak var observer: AnyObject?
    let willUpdate: (ObjectMonitor<O>, O, Any?) -> Void
    let didUpdate: (ObjectMonitor<O>, O, Set<String>, Any?) -> Void
    let didDelete: (ObjectMonitor<O>, O, Any?) -> Void

    init<U: ObjectObserver>(_ observer: U) where U.ObjectEntityType == O {
        self.observer = observer
        willUpdate = { [weak observer] in observer?.objectMonitor($0, willUpdateObject: $1, sourceIdentifier: $2) }
        didUpdate = { [weak observer] in observer?.objectMonitor($0, didUpdateObject: $1, changedPersistentKeys: $2, sourceIdentifier: $3) }
        didDelete = { [weak observer] in observer?.objectMonitor($0, didDeleteObject: $1, sourceIdentifier: $2) }
    }
}

/// A subscriber to an object monitor's changes.
struct ObjectChangeSink {
    let send: (ObjectChange, SourceIdentifierBox) -> Void
    let finish: () -> Void
}
