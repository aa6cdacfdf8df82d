// Reading the published object's fields directly, as CoreStore's publishers allow:
// `publisher.$name` is the current value of `name`, `nil` once the object is deleted.

extension ObjectPublisher {
    /// The current value of a stored field; `nil` once the object is deleted.
    public subscript<V: FieldStorableType>(dynamicMember keyPath: KeyPath<O, FieldDefinition.Stored<V>>) -> V? {
        snapshot.map { $0[dynamicMember: keyPath] }
    }

    /// The current decoded value of a coded field; `nil` once the object is deleted.
    public subscript<V>(dynamicMember keyPath: KeyPath<O, FieldDefinition.Coded<V>>) -> V? {
        snapshot.map { $0[dynamicMember: keyPath] }
    }

    /// The current value of a virtual field, computed from the object; `nil` once the object is
    /// deleted.
    public subscript<V>(dynamicMember keyPath: KeyPath<O, FieldDefinition.Virtual<V>>) -> V? {
        guard let object else { return nil }
        return object[keyPath: keyPath].getter(object)
    }

    /// A publisher of the destination of a to-one relationship; `nil` when it has none or the
    /// object is deleted.
    public subscript<D: CoreStoreObject>(dynamicMember keyPath: KeyPath<O, FieldDefinition.Relationship<D?>>) -> ObjectPublisher<D>? {
        snapshot?[dynamicMember: keyPath]
    }

    /// Publishers of the destinations of an ordered to-many relationship; `nil` once the object
    /// is deleted.
    public subscript<D: CoreStoreObject>(dynamicMember keyPath: KeyPath<O, FieldDefinition.Relationship<[D]>>) -> [ObjectPublisher<D>]? {
        snapshot.map { $0[dynamicMember: keyPath] }
    }

    /// Publishers of the destinations of an unordered to-many relationship; `nil` once the
    /// object is deleted.
    public subscript<D: CoreStoreObject>(dynamicMember keyPath: KeyPath<O, FieldDefinition.Relationship<Set<D>>>) -> Set<ObjectPublisher<D>>? {
        snapshot.map { $0[dynamicMember: keyPath] }
    }
}
