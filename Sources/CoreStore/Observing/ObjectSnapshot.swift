import CoreStoreStorage

/// The stored values of one object at one moment: a `Sendable` value to hand across threads,
/// compare, or show. Read fields by their projected names: `snapshot.$name`, `snapshot.$age`.
///
/// Relationships read as publishers of the related objects (`snapshot.$master` is an
/// `ObjectPublisher<Person>?`); their values are read when asked. Virtual fields hold what their
/// getters returned when the snapshot was taken from an object, as in CoreStore (a snapshot made
/// from stored values alone computes them from those values). Stored and coded fields can be
/// set: that changes this value only (to prepare an edit or compare with one), never the
/// object, its store, or the virtual values.
@dynamicMemberLookup
public struct ObjectSnapshot<O: CoreStoreObject>: Sendable, Hashable, Identifiable {
    /// The object's identifier.
    public let objectID: ObjectID
    private(set) var record: Record
    let entity: EntityDescription
    let dataStack: DataStack
    /// The virtual fields' values when the snapshot was taken from an object, by key.
    private var virtualValues = VirtualValues()

    init(objectID: ObjectID, record: Record, entity: EntityDescription, dataStack: DataStack) {
        self.objectID = objectID
        self.record = record
        self.entity = entity
        self.dataStack = dataStack
    }

    /// The snapshot of an object of `dataStack`'s read-only context (or a transaction), as it is now.
    init?(of object: O, in dataStack: DataStack) {
        guard let state = object.cs_state else { return nil }
        let (id, record, isDeleted) = state.valuesLock.withLock { (ObjectID(storeID: state.store.id, recordID: state.recordID), state.record, state.isDeleted) }
        if isDeleted { return nil }
        self.init(objectID: id, record: record, entity: state.entity.description, dataStack: dataStack)
        self.virtualValues = VirtualValues(of: object)
    }

    /// The object's identifier.
    public var id: ObjectID { objectID }

    /// The value of a stored field; setting it changes this snapshot only.
    public subscript<V: FieldStorableType>(dynamicMember keyPath: KeyPath<O, FieldDefinition.Stored<V>>) -> V {
        get {
            let key = FieldKeys.key(keyPath, on: O.self)
            if let ordinal = entity.attributeOrdinal(key), let value = V.cs_fromStoredValue(record.attributes[ordinal]) {
                return value
            }
            return O(asMeta: ())[keyPath: keyPath].initialValue()
        }
        set {
            guard let ordinal = entity.attributeOrdinal(FieldKeys.key(keyPath, on: O.self)) else { return }
            record.attributes[ordinal] = newValue.cs_toStoredValue()
        }
    }

    /// The decoded value of a coded field; setting it changes this snapshot only.
    public subscript<V>(dynamicMember keyPath: KeyPath<O, FieldDefinition.Coded<V>>) -> V {
        get {
            let field = O(asMeta: ())[keyPath: keyPath]
            if let ordinal = entity.attributeOrdinal(field.keyPath), case .bytes(let data) = record.attributes[ordinal], let value = field.decode(data) {
                return value
            }
            return field.initialValue()
        }
        set {
            let field = O(asMeta: ())[keyPath: keyPath]
            guard let ordinal = entity.attributeOrdinal(field.keyPath) else { return }
            record.attributes[ordinal] = field.encode(newValue).map { .bytes($0) } ?? .null
        }
    }

    /// The value of a virtual field: what its getter returned when the snapshot was taken, or,
    /// for a snapshot made from stored values, what it computes from them.
    public subscript<V>(dynamicMember keyPath: KeyPath<O, FieldDefinition.Virtual<V>>) -> V {
        let field = O(asMeta: ())[keyPath: keyPath]
        if let captured = virtualValues.values[field.keyPath], let value = captured as? V { return value }
        return field.getter(dataStack.detachedObject(O.self, showing: record, storeID: objectID.storeID) ?? O(asMeta: ()))
    }

    /// The destination of a to-one relationship.
    public subscript<D: CoreStoreObject>(dynamicMember keyPath: KeyPath<O, FieldDefinition.Relationship<D?>>) -> ObjectPublisher<D>? {
        let all: [ObjectPublisher<D>] = destinations(FieldKeys.key(keyPath, on: O.self))
        return all.first
    }

    /// The destinations of an ordered to-many relationship, in order.
    public subscript<D: CoreStoreObject>(dynamicMember keyPath: KeyPath<O, FieldDefinition.Relationship<[D]>>) -> [ObjectPublisher<D>] {
        destinations(FieldKeys.key(keyPath, on: O.self))
    }

    /// The destinations of an unordered to-many relationship.
    public subscript<D: CoreStoreObject>(dynamicMember keyPath: KeyPath<O, FieldDefinition.Relationship<Set<D>>>) -> Set<ObjectPublisher<D>> {
        let all: [ObjectPublisher<D>] = destinations(FieldKeys.key(keyPath, on: O.self))
        return Set(all)
    }

    private func destinations<D: CoreStoreObject>(_ key: String) -> [ObjectPublisher<D>] {
        guard let ordinal = entity.relationshipOrdinal(key) else { return [] }
        return record.relationships[ordinal].map { ObjectPublisher(dataStack: dataStack, objectID: ObjectID(storeID: objectID.storeID, recordID: $0)) }
    }

    /// Equal when the identifiers and every stored value are equal.
    public static func == (lhs: ObjectSnapshot, rhs: ObjectSnapshot) -> Bool {
        lhs.objectID == rhs.objectID && lhs.record == rhs.record
    }

    /// Hashes the identifier and the values.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(objectID)
        hasher.combine(record)
    }
}

extension DataStack {
    /// An instance of `O` showing `record`, registered nowhere: what a virtual field's getter
    /// reads when it computes a snapshot's value. `nil` when the store is no longer attached.
    func detachedObject<O: CoreStoreObject>(_ type: O.Type, showing record: Record, storeID: UInt64) -> O? {
        guard let store = gateway.store(withID: storeID), let entity = gateway.runtime.entitiesByName[record.id.entity] else { return nil }
        return mainContext.makeInstance(of: entity, in: store, record: record, isCommitted: true) as? O
    }
}
