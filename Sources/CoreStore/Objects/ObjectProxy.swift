/// An object as a field's custom getter or setter sees it: each field as a ``FieldProxy``,
/// whose `value` goes through that field's own accessors and whose `primitiveValue` is what is
/// stored.
///
/// ```swift
/// @Field.Stored("title", customGetter: { object, field in
///     field.primitiveValue.map { $0.capitalized } ?? ""
/// })
/// var title: String = ""
///
/// @Field.Virtual("displayName", customGetter: { object, field in
///     "\(object.$title.value) \(object.$name.value)"
/// })
/// var displayName: String
/// ```
/// Inside a field's own getter read `field.primitiveValue`, not `field.value` (which would call
/// the getter again).
@dynamicMemberLookup
public struct ObjectProxy<O: CoreStoreObject> {
    /// The object whose fields the proxy reads and writes.
    let object: O

    init(_ object: O) {
        self.object = object
    }

    /// A stored field.
    public subscript<V: FieldStorableType>(dynamicMember keyPath: KeyPath<O, FieldDefinition.Stored<V>>) -> FieldProxy<V> {
        O(asMeta: ())[keyPath: keyPath].proxy(for: object)
    }

    /// A virtual field.
    public subscript<V>(dynamicMember keyPath: KeyPath<O, FieldDefinition.Virtual<V>>) -> FieldProxy<V> {
        O(asMeta: ())[keyPath: keyPath].proxy(for: object)
    }

    /// A coded field.
    public subscript<V>(dynamicMember keyPath: KeyPath<O, FieldDefinition.Coded<V>>) -> FieldProxy<V> {
        O(asMeta: ())[keyPath: keyPath].proxy(for: object)
    }

    /// One field of the object: its value through the field's accessors, and its stored
    /// (primitive) value around them.
    public struct FieldProxy<V> {
        let getValue: () -> V
        let setValue: (V) -> Void
        let getPrimitive: () -> V?
        let setPrimitive: (V?) -> Void

        /// The field's value, as the property reads and writes it (custom accessors included).
        public var value: V {
            get { getValue() }
            nonmutating set { setValue(newValue) }
        }

        /// The value as stored, around any custom accessor: for a stored or coded field its
        /// stored value (`nil` when the object has none, such as a meta instance); for a virtual
        /// field a value kept with the object in memory only, never stored. Setting it inside a
        /// transaction changes the stored value as the property would.
        public var primitiveValue: V? {
            get { getPrimitive() }
            nonmutating set { setPrimitive(newValue) }
        }
    }
}
