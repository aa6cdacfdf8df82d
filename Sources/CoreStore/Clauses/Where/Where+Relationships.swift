import CoreStoreStorage

// Comparisons of relationships with objects, object IDs and nil:
//
//     From<Dog>().where(\.$master == person)          // to-one: this destination
//     From<Dog>().where(\.$master == nil)             // to-one: no destination
//     From<Person>().where(\.$pets == rex)            // to-many: contains rex
//     From<Dog>().where(\.$master ~= [ann, bob])      // any destination among these
//     From<Person>().where(\.$friends != nil)         // to-many: not empty
//
// Objects must belong to the same DataStack; an object that was never saved matches only inside
// the transaction that created it.

extension Where {
    fileprivate static func relationship<V>(
        _ lhs: Expression<WhereTarget.Single, V>, _ op: ComparisonOperator, objects: [CoreStoreObject?]
    ) -> Where {
        var ids: [ObjectID] = []
        for object in objects {
            guard let object else {
                return lhs.comparison(op, .value(.null))
            }
            guard let id = object.cs_id() else {
                return Where(failing: .invalidObject(message: "\(type(of: object)) used in a predicate on '\(lhs.keyPath.joined(separator: "."))' does not belong to any DataStack"))
            }
            ids.append(id)
        }
        return relationship(lhs, op, ids: ids)
    }

    /// The comparison with the objects' record identifiers, each naming its store (see
    /// ``StoreTaggedRecords``).
    fileprivate static func relationship<V>(
        _ lhs: Expression<WhereTarget.Single, V>, _ op: ComparisonOperator, ids: [ObjectID]
    ) -> Where {
        lhs.comparison(op, .records(ids.map(StoreTaggedRecords.tagged)))
    }
}

// MARK: Relationship key paths

/// Objects related to `object` (`nil`: objects with no destination).
public func == <O: CoreStoreObject, D: FieldRelationshipType>(_ keyPath: KeyPath<O, FieldDefinition.Relationship<D>>, _ object: D.DestinationObjectType?) -> Where<O> {
    .relationship(.init(keyPath), .equal, objects: [object])
}

/// Objects not related to `object` (`nil`: objects with at least one destination).
public func != <O: CoreStoreObject, D: FieldRelationshipType>(_ keyPath: KeyPath<O, FieldDefinition.Relationship<D>>, _ object: D.DestinationObjectType?) -> Where<O> {
    .relationship(.init(keyPath), .notEqual, objects: [object])
}

/// Objects related to the object with `objectID`.
public func == <O: CoreStoreObject, D: FieldRelationshipType>(_ keyPath: KeyPath<O, FieldDefinition.Relationship<D>>, _ objectID: ObjectID) -> Where<O> {
    .relationship(.init(keyPath), .equal, ids: [objectID])
}

/// Objects not related to the object with `objectID`.
public func != <O: CoreStoreObject, D: FieldRelationshipType>(_ keyPath: KeyPath<O, FieldDefinition.Relationship<D>>, _ objectID: ObjectID) -> Where<O> {
    .relationship(.init(keyPath), .notEqual, ids: [objectID])
}

/// Objects related to any of `objects` (`IN`).
public func ~= <O: CoreStoreObject, D: FieldRelationshipType, S: Sequence>(_ keyPath: KeyPath<O, FieldDefinition.Relationship<D>>, _ objects: S) -> Where<O> where S.Element == D.DestinationObjectType {
    .relationship(.init(keyPath), .in, objects: objects.map { $0 })
}

/// Objects related to any of the objects with these IDs (`IN`).
public func ~= <O: CoreStoreObject, D: FieldRelationshipType, S: Sequence>(_ keyPath: KeyPath<O, FieldDefinition.Relationship<D>>, _ objectIDs: S) -> Where<O> where S.Element == ObjectID {
    .relationship(.init(keyPath), .in, ids: Array(objectIDs))
}

// MARK: Relationship expressions

/// Objects whose reached relationship holds `object` (`nil`: holds nothing).
public func == <O: CoreStoreObject, D: FieldRelationshipType>(_ lhs: Where<O>.Expression<WhereTarget.Single, D>, _ object: D.DestinationObjectType?) -> Where<O> {
    .relationship(lhs, .equal, objects: [object])
}

/// Objects whose reached relationship does not hold `object` (`nil`: holds something).
public func != <O: CoreStoreObject, D: FieldRelationshipType>(_ lhs: Where<O>.Expression<WhereTarget.Single, D>, _ object: D.DestinationObjectType?) -> Where<O> {
    .relationship(lhs, .notEqual, objects: [object])
}

/// Objects whose reached relationship holds the object with `objectID`.
public func == <O: CoreStoreObject, D: FieldRelationshipType>(_ lhs: Where<O>.Expression<WhereTarget.Single, D>, _ objectID: ObjectID) -> Where<O> {
    .relationship(lhs, .equal, ids: [objectID])
}

/// Objects whose reached relationship does not hold the object with `objectID`.
public func != <O: CoreStoreObject, D: FieldRelationshipType>(_ lhs: Where<O>.Expression<WhereTarget.Single, D>, _ objectID: ObjectID) -> Where<O> {
    .relationship(lhs, .notEqual, ids: [objectID])
}

/// Objects whose reached relationship holds any of `objects` (`IN`).
public func ~= <O: CoreStoreObject, D: FieldRelationshipType, S: Sequence>(_ lhs: Where<O>.Expression<WhereTarget.Single, D>, _ objects: S) -> Where<O> where S.Element == D.DestinationObjectType {
    .relationship(lhs, .in, objects: objects.map { $0 })
}

/// Objects whose reached relationship holds any of the objects with these IDs (`IN`).
public func ~= <O: CoreStoreObject, D: FieldRelationshipType, S: Sequence>(_ lhs: Where<O>.Expression<WhereTarget.Single, D>, _ objectIDs: S) -> Where<O> where S.Element == ObjectID {
    .relationship(lhs, .in, ids: Array(objectIDs))
}
