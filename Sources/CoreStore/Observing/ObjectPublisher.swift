import Foundation
import CoreStoreStorage

/// A `Sendable` handle on one object of a `DataStack` that tells its observers, once per
/// commit, when the object changed or was deleted; read its ``snapshot`` or ``object`` then.
///
/// ```swift
/// let publisher = dataStack.publishObject(person)
/// publisher.addObserver(self) { publisher in print(publisher.snapshot?.$name ?? "deleted") }
/// for await snapshot in publisher.snapshots { … }
/// ```
/// Following the object starts with the first observer or sequence; callbacks arrive on the
/// delivery queue (the main queue by default). Observers are held weakly.
@dynamicMemberLookup
public final class ObjectPublisher<O: CoreStoreObject>: @unchecked Sendable, Hashable, Identifiable, CustomDebugStringConvertible {
    /// The stack the object lives in.
    public let dataStack: DataStack
    /// The object's identifier.
    public let objectID: ObjectID
    private let deliveryQueue: DispatchQueue
    private let lock = NSLock()
    private var monitor: ObjectMonitor<O>?
    private var sinkToken: UUID?
    private let observers = PublisherObservers<ObjectPublisher<O>>()
    private let snapshotStreams = AsyncStreamFanOut<ObjectSnapshot<O>?>()
    private let changeStreams = AsyncStreamFanOut<ObjectChange>()

    init(dataStack: DataStack, objectID: ObjectID, deliveryQueue: DispatchQueue = .main) {
        self.dataStack = dataStack
        self.objectID = objectID
        self.deliveryQueue = deliveryQueue
    }

    deinit {
        if let sinkToken { monitor?.removeSink(sinkToken) }
        snapshotStreams.finish()
        changeStreams.finish()
    }

    /// The identifier.
    public var id: ObjectID { objectID }

    /// The object in the stack's read-only context; `nil` once deleted.
    public var object: O? {
        dataStack.fetchExisting(objectID)
    }

    /// The object's current values; `nil` once deleted.
    public var snapshot: ObjectSnapshot<O>? {
        object.flatMap { ObjectSnapshot(of: $0, in: dataStack) }
    }

    /// Calls `callback` after every commit that changes or deletes the object, while `observer`
    /// lives (held weakly); with `notifyInitial`, also right away.
    public func addObserver<T: AnyObject>(_ observer: T, notifyInitial: Bool = false, _ callback: @escaping (ObjectPublisher<O>) -> Void) {
        addObserver(observer, notifyInitial: notifyInitial) { publisher, _ in callback(publisher) }
    }

    /// Calls `callback` after every commit that changes or deletes the object, with the
    /// committing transaction's `sourceIdentifier`; with `notifyInitial`, also right away, with
    /// `initialSourceIdentifier`.
    public func addObserver<T: AnyObject>(
        _ observer: T, notifyInitial: Bool = false, initialSourceIdentifier: Any? = nil,
        _ callback: @escaping (_ objectPublisher: ObjectPublisher<O>, _ sourceIdentifier: Any?) -> Void
    ) {
        startFollowing()
        observers.add(observer, callback)
        if notifyInitial { callback(self, initialSourceIdentifier) }
    }

    /// Stops calling `observer`'s callback.
    public func removeObserver<T: AnyObject>(_ observer: T) {
        observers.remove(observer)
    }

    /// The current snapshot, then one after every commit that changes the object; `nil` and
    /// the end of the sequence once it is deleted. Cancelling the iterating task unsubscribes.
    public var snapshots: AsyncStream<ObjectSnapshot<O>?> {
        startFollowing()
        let current = snapshot
        if current == nil {
            return AsyncStream { continuation in
                continuation.yield(nil)
                continuation.finish()
            }
        }
        return snapshotStreams.makeStream(initial: current)
    }

    /// What each commit did to the object, as ``ObjectMonitor/changes`` reports it: the stored
    /// keys it changed, or ``ObjectChange/deleted``, after which the sequence ends (at once for
    /// an object already deleted). Cancelling the iterating task unsubscribes.
    public var changes: AsyncStream<ObjectChange> {
        startFollowing()
        if object == nil {
            return AsyncStream { $0.finish() }
        }
        return changeStreams.makeStream()
    }

    private func startFollowing() {
        let needsMonitor = lock.withLock { monitor == nil }
        guard needsMonitor, let newMonitor = try? ObjectMonitor<O>(dataStack: dataStack, objectID: objectID, deliveryQueue: deliveryQueue) else { return }
        let token = newMonitor.addSink(ObjectChangeSink(
            send: { [weak self] change, source in self?.publish(change, source: source) },
            finish: {}
        ))
        lock.withLock {
            if monitor == nil {
                monitor = newMonitor
                sinkToken = token
            }
        }
    }

    private func publish(_ change: ObjectChange, source: SourceIdentifierBox) {
        observers.notify(self, sourceIdentifier: source.value)
        let current = change == .deleted ? nil : snapshot
        snapshotStreams.send(current)
        if current == nil { snapshotStreams.finish() }
        changeStreams.send(change)
        if change == .deleted { changeStreams.finish() }
    }

    /// Equal when they follow the same object of the same stack.
    public static func == (lhs: ObjectPublisher, rhs: ObjectPublisher) -> Bool {
        lhs.objectID == rhs.objectID && lhs.dataStack === rhs.dataStack
    }

    /// Hashes the identifier.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(objectID)
    }

    /// The entity and identifier.
    public var debugDescription: String { "ObjectPublisher<\(O.self)>(\(objectID))" }
}

/// Lets every model class hand out its other representations typed by itself:
/// `person.asPublisher(in: dataStack)`, `person.asSnapshot(in: transaction)` (see
/// ``ObjectRepresentation`` for publishers and monitors).
public protocol ObjectPublishing: AnyObject {}

extension CoreStoreObject: ObjectPublishing {}

extension ObjectPublishing where Self: CoreStoreObject {
    /// A publisher of this object in `dataStack`. The object must have been committed; for an
    /// uncommitted one the publisher's ``ObjectPublisher/object`` stays `nil`.
    public func asPublisher(in dataStack: DataStack) -> ObjectPublisher<Self> {
        let id = cs_id() ?? ObjectID(storeID: 0, recordID: RecordID(entity: "\(Self.self)", key: 0))
        return ObjectPublisher(dataStack: dataStack, objectID: id)
    }

    /// This object's instance in `dataStack`'s read-only context; `nil` when it is not stored
    /// there (uncommitted, deleted, or of another stack).
    public func asReadOnly(in dataStack: DataStack) -> Self? {
        dataStack.fetchExisting(self)
    }

    /// This object's instance in `transaction`, to edit; `nil` when it does not exist there.
    public func asEditable(in transaction: BaseDataTransaction) -> Self? {
        transaction.fetchExisting(self)
    }

    /// This object's values as `dataStack` holds them now.
    public func asSnapshot(in dataStack: DataStack) -> ObjectSnapshot<Self>? {
        asReadOnly(in: dataStack).flatMap { ObjectSnapshot(of: $0, in: dataStack) }
    }

    /// This object's values as `transaction` sees them, its uncommitted changes included.
    public func asSnapshot(in transaction: BaseDataTransaction) -> ObjectSnapshot<Self>? {
        asEditable(in: transaction).flatMap { ObjectSnapshot(of: $0, in: transaction.dataStack) }
    }
}
