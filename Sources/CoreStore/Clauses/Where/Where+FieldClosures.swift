import CoreStoreStorage

// CoreStore's closure form of a condition: `Where<Person>({ $0.$age > 30 })`. The closure is
// called once, with a meta instance (no stored values), and compares its fields (`$0.$age`,
// the field itself) with constants; it is the same condition as `\.$age > 30`.

extension Where {
    /// The condition `condition` builds from the fields of a meta instance of `O`:
    /// `Where<Person>({ $0.$name == "Ann" && $0.$age > 30 })`.
    public init(_ condition: (O) -> Where<O>) {
        self = condition(O(asMeta: ()))
    }
}

/// Objects whose field equals `value` (`nil` matches only `nil`), in a `Where` closure.
public func == <O: CoreStoreObject, V: FieldStorableType>(_ field: FieldDefinition.Stored<V>, _ value: V) -> Where<O> {
    .compare(Where<O>.Expression<WhereTarget.Single, V>([field.keyPath]), .equal, value)
}

/// Objects whose field differs from `value`, in a `Where` closure.
public func != <O: CoreStoreObject, V: FieldStorableType>(_ field: FieldDefinition.Stored<V>, _ value: V) -> Where<O> {
    .compare(Where<O>.Expression<WhereTarget.Single, V>([field.keyPath]), .notEqual, value)
}

/// Objects whose field is less than `value` (never true for `nil`), in a `Where` closure.
public func < <O: CoreStoreObject, V: FieldStorableType>(_ field: FieldDefinition.Stored<V>, _ value: V) -> Where<O> {
    .compare(Where<O>.Expression<WhereTarget.Single, V>([field.keyPath]), .less, value)
}

/// Objects whose field is at most `value` (never true for `nil`), in a `Where` closure.
public func <= <O: CoreStoreObject, V: FieldStorableType>(_ field: FieldDefinition.Stored<V>, _ value: V) -> Where<O> {
    .compare(Where<O>.Expression<WhereTarget.Single, V>([field.keyPath]), .lessOrEqual, value)
}

/// Objects whose field is greater than `value` (never true for `nil`), in a `Where` closure.
public func > <O: CoreStoreObject, V: FieldStorableType>(_ field: FieldDefinition.Stored<V>, _ value: V) -> Where<O> {
    .compare(Where<O>.Expression<WhereTarget.Single, V>([field.keyPath]), .greater, value)
}

/// Objects whose field is at least `value` (never true for `nil`), in a `Where` closure.
public func >= <O: CoreStoreObject, V: FieldStorableType>(_ field: FieldDefinition.Stored<V>, _ value: V) -> Where<O> {
    .compare(Where<O>.Expression<WhereTarget.Single, V>([field.keyPath]), .greaterOrEqual, value)
}

/// Objects whose field is one of `values`, in a `Where` closure.
public func ~= <O: CoreStoreObject, V: FieldStorableType, S: Sequence>(_ field: FieldDefinition.Stored<V>, _ values: S) -> Where<O> where S.Element == V {
    .member(Where<O>.Expression<WhereTarget.Single, V>([field.keyPath]), values)
}
