import CoreStoreStorage

/// The ways to reach one stored object that CoreStore lets a model object, an
/// ``ObjectPublisher`` and an ``ObjectMonitor`` convert between: a publisher, the stack's
/// read-only instance, a transaction's editable instance, and a snapshot of its values.
///
/// Every conversion answers `nil` when the object does not exist there (deleted, not yet
/// committed when asked of a stack, or of another stack).
public protocol ObjectRepresentation {
    /// The model class of the object.
    associatedtype ObjectType: CoreStoreObject

    /// The identifier of the object, or `nil` for an object that has none yet.
    var representedObjectID: ObjectID? { get }
}

extension ObjectRepresentation {
    /// A publisher of the object in `dataStack`.
    public func asPublisher(in dataStack: DataStack) -> ObjectPublisher<ObjectType> {
        let id = representedObjectID ?? ObjectID(storeID: 0, recordID: RecordID(entity: "\(ObjectType.self)", key: 0))
        return ObjectPublisher(dataStack: dataStack, objectID: id)
    }

    /// The instance of the object in `dataStack`'s read-only context.
    public func asReadOnly(in dataStack: DataStack) -> ObjectType? {
        representedObjectID.flatMap { dataStack.fetchExisting($0) }
    }

    /// The instance of the object in `transaction`, to edit.
    public func asEditable(in transaction: BaseDataTransaction) -> ObjectType? {
        representedObjectID.flatMap { transaction.fetchExisting($0) }
    }

    /// The object's values as `dataStack` holds them now.
    public func asSnapshot(in dataStack: DataStack) -> ObjectSnapshot<ObjectType>? {
        asReadOnly(in: dataStack).flatMap { ObjectSnapshot(of: $0, in: dataStack) }
    }

    /// The object's values as `transaction` sees them, its uncommitted changes included.
    public func asSnapshot(in transaction: BaseDataTransaction) -> ObjectSnapshot<ObjectType>? {
        asEditable(in: transaction).flatMap { ObjectSnapshot(of: $0, in: transaction.dataStack) }
    }
}

extension ObjectPublisher: ObjectRepresentation {
    /// The model class the publisher follows.
    public typealias ObjectType = O

    /// ``objectID``.
    public var representedObjectID: ObjectID? { objectID }
}

extension ObjectMonitor: ObjectRepresentation {
    /// The model class the monitor follows.
    public typealias ObjectType = O

    /// ``objectID``.
    public var representedObjectID: ObjectID? { objectID }
}

extension ObjectSnapshot: ObjectRepresentation {
    /// The model class of the snapshot's object.
    public typealias ObjectType = O

    /// ``objectID``: a snapshot converts to the object it was taken from
    /// (`snapshot.asEditable(in: transaction)`), as it is now.
    public var representedObjectID: ObjectID? { objectID }
}
