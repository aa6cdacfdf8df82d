/// A field's custom getter and setter in CoreStore's `(ObjectProxy<O>, FieldProxy<V>)` form,
/// erased to the enclosing object so that the field's type need not name its class.
@usableFromInline
final class FieldAccessors<V>: @unchecked Sendable {
    @usableFromInline let getter: ((CoreStoreObject) -> V)?
    @usableFromInline let setter: ((CoreStoreObject, V) -> Void)?

    init(getter: ((CoreStoreObject) -> V)?, setter: ((CoreStoreObject, V) -> Void)?) {
        self.getter = getter
        self.setter = setter
    }

    /// Wraps typed accessors; `nil` when there are none. `field` makes the field's proxy for an
    /// object (its `value` and `primitiveValue`).
    static func make<O: CoreStoreObject>(
        getter: ((ObjectProxy<O>, ObjectProxy<O>.FieldProxy<V>) -> V)?,
        setter: ((ObjectProxy<O>, ObjectProxy<O>.FieldProxy<V>, V) -> Void)?,
        field: @escaping (O) -> ObjectProxy<O>.FieldProxy<V>
    ) -> FieldAccessors<V>? {
        if getter == nil && setter == nil { return nil }
        return FieldAccessors(
            getter: getter.map { get in { object in
                let typed = object as! O
                return get(ObjectProxy(typed), field(typed))
            } },
            setter: setter.map { set in { object, value in
                let typed = object as! O
                set(ObjectProxy(typed), field(typed), value)
            } }
        )
    }
}
