import CoreStoreStorage

/// Chains key paths through relationships: `\.$master ~ \.$name` is the key path `master.name`.
precedencegroup KeyPathChainingPrecedence {
    associativity: left
    higherThan: ComparisonPrecedence
}

/// Chains a relationship key path with a key path of its destination.
infix operator ~ : KeyPathChainingPrecedence

extension Where {
    /// A typed key path that starts at `O` and may cross relationships, ending at a value of
    /// type `V` (a stored field's type, or a relationship's `T?`, `[T]` or `Set<T>`).
    ///
    /// Build one with `~` and compare it like a field:
    /// ```swift
    /// From<Dog>().where((\.$master ~ \.$name) == "Ann")
    /// From<Person>().where((\.$pets ~ \.$name).any() == "Rex")
    /// From<Person>().where((\.$pets ~ \.$name).all() != "Rex")
    /// From<Person>().where((\Person.$pets).count() > 2)
    /// ```
    /// `Target` is ``WhereTarget/Single`` while the path reaches one value and
    /// ``WhereTarget/Collection`` once it crosses a to-many relationship; a collection is
    /// compared through ``any()``, ``all()`` or ``none()``.
    public struct Expression<Target, V> {
        /// The stored keys, one per hop.
        public let keyPath: [String]
        /// How the reached values are combined (`Quantifier/any` unless narrowed).
        public let quantifier: Quantifier
        /// A function applied to the last relationship (`count()`), if any.
        public let function: KeyPathFunction?

        init(_ keyPath: [String], quantifier: Quantifier = .any, function: KeyPathFunction? = nil) {
            self.keyPath = keyPath
            self.quantifier = quantifier
            self.function = function
        }

        /// A comparison of this expression with an operand.
        func comparison(_ op: ComparisonOperator, _ operand: Operand, options: StringComparisonOptions = []) -> Where<O> {
            Where(.comparison(Comparison(keyPath, op, operand, options: options, quantifier: quantifier, function: function)))
        }
    }
}

extension Where.Expression where Target == WhereTarget.Single, V: FieldStorableType {
    /// The expression for a stored field of `O`.
    init(_ field: KeyPath<O, FieldDefinition.Stored<V>>) {
        self.init([FieldKeys.key(field, on: O.self)])
    }
}

extension Where.Expression where Target == WhereTarget.Single, V: FieldRelationshipType {
    /// The expression for a relationship of `O`.
    init(_ relationship: KeyPath<O, FieldDefinition.Relationship<V>>) {
        self.init([FieldKeys.key(relationship, on: O.self)])
    }
}

extension Where.Expression where Target == WhereTarget.Collection {
    /// True when at least one reached value satisfies the comparison (`ANY`).
    public func any() -> Where<O>.Expression<WhereTarget.Single, V> {
        .init(keyPath, quantifier: .any, function: function)
    }

    /// True when every reached value satisfies the comparison, and when none is reached (`ALL`).
    public func all() -> Where<O>.Expression<WhereTarget.Single, V> {
        .init(keyPath, quantifier: .all, function: function)
    }

    /// True when no reached value satisfies the comparison, and when none is reached (`NONE`).
    public func none() -> Where<O>.Expression<WhereTarget.Single, V> {
        .init(keyPath, quantifier: .none, function: function)
    }
}

extension Where.Expression where V: ToManyRelationshipType {
    /// The number of destinations of the to-many relationship the expression ends at
    /// (`@count`).
    public func count() -> Where<O>.Expression<Target, Int> {
        .init(keyPath, quantifier: quantifier, function: .count)
    }
}

extension KeyPath where Root: CoreStoreObject, Value: FieldRelationshipKeyPathValue, Value.RelationshipValue: ToManyRelationshipType {
    /// The number of destinations of this to-many relationship (`@count`):
    /// `From<Person>().where((\Person.$pets).count() >= 2)` (the parentheses end the key path).
    public func count() -> Where<Root>.Expression<WhereTarget.Single, Int> {
        .init([FieldKeys.key(self, on: Root.self)], function: .count)
    }
}

// MARK: Chaining

/// `relationship.field`: a stored field of the relationship's destination.
public func ~ <O: CoreStoreObject, D: FieldRelationshipType, V: FieldStorableType>(
    lhs: KeyPath<O, FieldDefinition.Relationship<D>>, rhs: KeyPath<D.DestinationObjectType, FieldDefinition.Stored<V>>
) -> Where<O>.Expression<D.ReachedTarget, V> {
    .init([FieldKeys.key(lhs, on: O.self), FieldKeys.key(rhs, on: D.DestinationObjectType.self)])
}

/// `relationship.relationship`: a relationship of the relationship's destination.
public func ~ <O: CoreStoreObject, D: FieldRelationshipType, R: FieldRelationshipType>(
    lhs: KeyPath<O, FieldDefinition.Relationship<D>>, rhs: KeyPath<D.DestinationObjectType, FieldDefinition.Relationship<R>>
) -> Where<O>.Expression<D.ReachedTarget, R> {
    .init([FieldKeys.key(lhs, on: O.self), FieldKeys.key(rhs, on: D.DestinationObjectType.self)])
}

/// Extends a single-valued path with a stored field of its destination.
public func ~ <O: CoreStoreObject, D: FieldRelationshipType, V: FieldStorableType>(
    lhs: Where<O>.Expression<WhereTarget.Single, D>, rhs: KeyPath<D.DestinationObjectType, FieldDefinition.Stored<V>>
) -> Where<O>.Expression<D.ReachedTarget, V> {
    .init(lhs.keyPath + [FieldKeys.key(rhs, on: D.DestinationObjectType.self)])
}

/// Extends a single-valued path with a relationship of its destination.
public func ~ <O: CoreStoreObject, D: FieldRelationshipType, R: FieldRelationshipType>(
    lhs: Where<O>.Expression<WhereTarget.Single, D>, rhs: KeyPath<D.DestinationObjectType, FieldDefinition.Relationship<R>>
) -> Where<O>.Expression<D.ReachedTarget, R> {
    .init(lhs.keyPath + [FieldKeys.key(rhs, on: D.DestinationObjectType.self)])
}

/// Extends a many-valued path with a stored field of its destinations.
public func ~ <O: CoreStoreObject, D: FieldRelationshipType, V: FieldStorableType>(
    lhs: Where<O>.Expression<WhereTarget.Collection, D>, rhs: KeyPath<D.DestinationObjectType, FieldDefinition.Stored<V>>
) -> Where<O>.Expression<WhereTarget.Collection, V> {
    .init(lhs.keyPath + [FieldKeys.key(rhs, on: D.DestinationObjectType.self)])
}

/// Extends a many-valued path with a relationship of its destinations.
public func ~ <O: CoreStoreObject, D: FieldRelationshipType, R: FieldRelationshipType>(
    lhs: Where<O>.Expression<WhereTarget.Collection, D>, rhs: KeyPath<D.DestinationObjectType, FieldDefinition.Relationship<R>>
) -> Where<O>.Expression<WhereTarget.Collection, R> {
    .init(lhs.keyPath + [FieldKeys.key(rhs, on: D.DestinationObjectType.self)])
}
