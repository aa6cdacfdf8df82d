extension FieldDefinition {
    /// The description of a computed property that is never stored: what `$name` is, and what
    /// `\Person.$name` names in clauses. Declared with the property wrapper
    /// ``FieldContainer/Virtual``.
    public struct Virtual<V>: FieldDescribing {
        /// The key naming this property.
        public let keyPath: String
        let getter: (CoreStoreObject) -> V
        let setter: ((CoreStoreObject, V) -> Void)?
        let makeMeta: () -> CoreStoreObject
        /// The keys whose changes observers also report as changes of this field.
        let affectedByKeyPaths: () -> Set<String>

        init<O: CoreStoreObject>(
            _ keyPath: String,
            customGetter: @escaping (O) -> V,
            customSetter: ((O, V) -> Void)? = nil
        ) {
            self.keyPath = keyPath
            self.getter = { object in customGetter((object as? O) ?? O(asMeta: ())) }
            self.setter = customSetter.map { set in { object, value in if let o = object as? O { set(o, value) } } }
            self.makeMeta = { O(asMeta: ()) }
            self.affectedByKeyPaths = { [] }
        }

        init<O: CoreStoreObject>(
            _ keyPath: KeyPathString,
            customGetter: @escaping (_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>) -> V,
            customSetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>, _ newValue: V) -> Void)? = nil,
            affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = []
        ) {
            self.keyPath = keyPath
            self.getter = { object in
                let typed = (object as? O) ?? O(asMeta: ())
                return customGetter(ObjectProxy(typed), Self.transientProxy(keyPath, of: typed, getter: customGetter))
            }
            // Without a custom setter, assigning keeps the value as the primitive value (which
            // the getter may return), as in CoreStore.
            self.setter = { object, value in
                guard let typed = object as? O else { return }
                let field = Self.transientProxy(keyPath, of: typed, getter: customGetter)
                if let customSetter {
                    customSetter(ObjectProxy(typed), field, value)
                } else {
                    field.primitiveValue = value
                }
            }
            self.makeMeta = { O(asMeta: ()) }
            self.affectedByKeyPaths = affectedByKeyPaths
        }

        /// The field's own proxy inside its accessors: `value` runs the getter (so the getter
        /// itself must read `primitiveValue`), `primitiveValue` is the in-memory value.
        private static func transientProxy<O: CoreStoreObject>(
            _ key: String, of object: O, getter: @escaping (ObjectProxy<O>, ObjectProxy<O>.FieldProxy<V>) -> V
        ) -> ObjectProxy<O>.FieldProxy<V> {
            // `flatMap`: a missing entry is no value, even when `V` is itself optional (`nil as? V`
            // would succeed for an optional `V`).
            func primitive() -> V? { object.valuesLock.withLock { object.transientValues[key].flatMap { $0 as? V } } }
            func setPrimitive(_ value: V?) { object.valuesLock.withLock { object.transientValues[key] = value } }
            return ObjectProxy<O>.FieldProxy(
                getValue: { primitive() ?? getter(ObjectProxy(object), transientProxy(key, of: object, getter: getter)) },
                setValue: { setPrimitive($0) },
                getPrimitive: primitive,
                setPrimitive: setPrimitive
            )
        }

        /// This field of `object` as another field's accessor sees it: `value` is the
        /// property's value, `primitiveValue` the in-memory value.
        func proxy<O: CoreStoreObject>(for object: O) -> ObjectProxy<O>.FieldProxy<V> {
            let field = self, key = keyPath
            return ObjectProxy<O>.FieldProxy(
                getValue: { field.getter(object) },
                setValue: { value in
                    guard let setter = field.setter else {
                        Log.assert(false, "The virtual property '\(key)' has no custom setter; the value was ignored.")
                        return
                    }
                    setter(object, value)
                },
                getPrimitive: { object.valuesLock.withLock { object.transientValues[key].flatMap { $0 as? V } } },
                setPrimitive: { value in object.valuesLock.withLock { object.transientValues[key] = value } }
            )
        }

        var cs_affectedByKeyPaths: Set<String> { affectedByKeyPaths() }

        var cs_fieldKind: FieldKind { .virtual(name: keyPath) }
    }
}

extension FieldContainer {
    /// The property wrapper of a computed property that is never stored: its value comes from a getter, and setting it
    /// runs an optional setter.
    ///
    /// ```swift
    /// @Field.Virtual("displayName", customGetter: Person.displayName(of:))
    /// var displayName: String
    ///
    /// static func displayName(of person: Person) -> String { "\(person.title) \(person.name)" }
    /// ```
    @propertyWrapper
    public struct Virtual<V>: FieldDescribing {
        /// The field's description: what `$name` is, and what `\Person.$name` names.
        public let projectedValue: FieldDefinition.Virtual<V>

        /// Declares a virtual property computed by `customGetter`; when `customSetter` is given,
        /// assigning the property runs it (typically to set stored fields).
        public init(
            _ keyPath: String,
            customGetter: @escaping (O) -> V,
            customSetter: ((O, V) -> Void)? = nil
        ) {
            self.projectedValue = FieldDefinition.Virtual<V>(keyPath, customGetter: customGetter, customSetter: customSetter)
        }

        /// Declares a virtual property in CoreStore's form: the getter and setter see the
        /// object as an ``ObjectProxy`` (`object.$name.value`) and this field as a
        /// ``ObjectProxy/FieldProxy`` whose `primitiveValue` is kept with the object in memory
        /// (a cache the accessors may use; never stored). `affectedByKeyPaths` names the keys
        /// whose changes observers also report as changes of this field.
        ///
        public init(
            _ keyPath: KeyPathString,
            customGetter: @escaping (_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>) -> V,
            customSetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>, _ newValue: V) -> Void)? = nil,
            affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = []
        ) {
            self.projectedValue = FieldDefinition.Virtual<V>(keyPath, customGetter: customGetter, customSetter: customSetter, affectedByKeyPaths: affectedByKeyPaths())
        }

        /// Unavailable: the value is computed through the enclosing instance.
        @available(*, unavailable)
        public var wrappedValue: V {
            get { projectedValue.getter(projectedValue.makeMeta()) }
            set { _ = newValue }
        }

        /// Runs the getter or the setter on the enclosing instance.
        public static subscript(
            _enclosingInstance instance: O,
            wrapped wrappedKeyPath: ReferenceWritableKeyPath<O, V>,
            storage storageKeyPath: ReferenceWritableKeyPath<O, Self>
        ) -> V {
            get {
                instance[keyPath: storageKeyPath].projectedValue.getter(instance)
            }
            set {
                let field = instance[keyPath: storageKeyPath].projectedValue
                guard let setter = field.setter else {
                    Log.assert(false, "The virtual property '\(field.keyPath)' has no custom setter; the value was ignored.")
                    return
                }
                setter(instance, newValue)
            }
        }

        var cs_fieldKind: FieldKind { projectedValue.cs_fieldKind }
        var cs_affectedByKeyPaths: Set<String> { projectedValue.cs_affectedByKeyPaths }
    }
}

