import CoreStoreStorage

// Comparisons of stored values: a field key path (`\.$age > 30`) or a single-valued expression
// (`(\.$master ~ \.$age) > 30`, `(\.$pets ~ \.$age).any() > 30`) with a constant.
// `nil` equals only `nil`; ordering comparisons are never true for `nil`.

extension Where {
    static func compare<V, W: FieldStorableType>(
        _ lhs: Expression<WhereTarget.Single, V>, _ op: ComparisonOperator, _ value: W
    ) -> Where {
        lhs.comparison(op, .value(value.cs_toStoredValue()))
    }

    static func member<V: FieldStorableType, S: Sequence>(
        _ lhs: Expression<WhereTarget.Single, V>, _ values: S
    ) -> Where where S.Element == V {
        lhs.comparison(.in, .list(values.map { $0.cs_toStoredValue() }))
    }
}

// MARK: Fields

/// Objects whose field equals `value` (`nil` matches only `nil`).
public func == <O: CoreStoreObject, V: FieldStorableType>(_ keyPath: KeyPath<O, FieldDefinition.Stored<V>>, _ value: V) -> Where<O> {
    .compare(.init(keyPath), .equal, value)
}

/// Objects whose field differs from `value`.
public func != <O: CoreStoreObject, V: FieldStorableType>(_ keyPath: KeyPath<O, FieldDefinition.Stored<V>>, _ value: V) -> Where<O> {
    .compare(.init(keyPath), .notEqual, value)
}

/// Objects whose field is less than `value` (never true for `nil`).
public func < <O: CoreStoreObject, V: FieldStorableType>(_ keyPath: KeyPath<O, FieldDefinition.Stored<V>>, _ value: V) -> Where<O> {
    .compare(.init(keyPath), .less, value)
}

/// Objects whose field is at most `value` (never true for `nil`).
public func <= <O: CoreStoreObject, V: FieldStorableType>(_ keyPath: KeyPath<O, FieldDefinition.Stored<V>>, _ value: V) -> Where<O> {
    .compare(.init(keyPath), .lessOrEqual, value)
}

/// Objects whose field is greater than `value` (never true for `nil`).
public func > <O: CoreStoreObject, V: FieldStorableType>(_ keyPath: KeyPath<O, FieldDefinition.Stored<V>>, _ value: V) -> Where<O> {
    .compare(.init(keyPath), .greater, value)
}

/// Objects whose field is at least `value` (never true for `nil`).
public func >= <O: CoreStoreObject, V: FieldStorableType>(_ keyPath: KeyPath<O, FieldDefinition.Stored<V>>, _ value: V) -> Where<O> {
    .compare(.init(keyPath), .greaterOrEqual, value)
}

/// Objects whose field is one of `values` (`IN`).
public func ~= <O: CoreStoreObject, V: FieldStorableType, S: Sequence>(_ keyPath: KeyPath<O, FieldDefinition.Stored<V>>, _ values: S) -> Where<O> where S.Element == V {
    .member(.init(keyPath), values)
}

/// Objects whose field is one of `values` (`IN`), with the list first.
public func ~= <O: CoreStoreObject, V: FieldStorableType, S: Sequence>(_ values: S, _ keyPath: KeyPath<O, FieldDefinition.Stored<V>>) -> Where<O> where S.Element == V {
    .member(.init(keyPath), values)
}

// MARK: Expressions

/// Objects whose reached value equals `value`; `nil` also matches a missing to-one hop.
public func == <O: CoreStoreObject, V: FieldStorableType>(_ lhs: Where<O>.Expression<WhereTarget.Single, V>, _ value: V?) -> Where<O> {
    .compare(lhs, .equal, value)
}

/// Objects whose reached value differs from `value`.
public func != <O: CoreStoreObject, V: FieldStorableType>(_ lhs: Where<O>.Expression<WhereTarget.Single, V>, _ value: V?) -> Where<O> {
    .compare(lhs, .notEqual, value)
}

/// Objects whose reached value is less than `value`.
public func < <O: CoreStoreObject, V: FieldStorableType>(_ lhs: Where<O>.Expression<WhereTarget.Single, V>, _ value: V) -> Where<O> {
    .compare(lhs, .less, value)
}

/// Objects whose reached value is at most `value`.
public func <= <O: CoreStoreObject, V: FieldStorableType>(_ lhs: Where<O>.Expression<WhereTarget.Single, V>, _ value: V) -> Where<O> {
    .compare(lhs, .lessOrEqual, value)
}

/// Objects whose reached value is greater than `value`.
public func > <O: CoreStoreObject, V: FieldStorableType>(_ lhs: Where<O>.Expression<WhereTarget.Single, V>, _ value: V) -> Where<O> {
    .compare(lhs, .greater, value)
}

/// Objects whose reached value is at least `value`.
public func >= <O: CoreStoreObject, V: FieldStorableType>(_ lhs: Where<O>.Expression<WhereTarget.Single, V>, _ value: V) -> Where<O> {
    .compare(lhs, .greaterOrEqual, value)
}

/// Objects whose reached value is one of `values` (`IN`).
public func ~= <O: CoreStoreObject, V: FieldStorableType, S: Sequence>(_ lhs: Where<O>.Expression<WhereTarget.Single, V>, _ values: S) -> Where<O> where S.Element == V {
    .member(lhs, values)
}
