import CoreStoreStorage

extension FieldDefinition {
    /// The description of a stored attribute: what `$title` is, and what `\Person.$title` names
    /// in clauses. Declared with the property wrapper ``FieldContainer/Stored``.
    public struct Stored<V: FieldStorableType>: FieldDescribing {
        /// The stored key.
        public let keyPath: String
        /// The bits of ``keyPath`` (see `StringBits`), valid as long as this field: what a
        /// property getter finds the attribute's ordinal with, without copying the key.
        @usableFromInline var keyBits: StringBits {
            @inline(__always) get { StringBits(keyPath) }
        }
        @usableFromInline let initialValue: () -> V
        /// The rest of the declaration; `nil` when it says nothing more (see
        /// ``StoredFieldDetails``: every object holds a copy of this field).
        @usableFromInline let details: StoredFieldDetails<V>?

        /// The key this attribute had in the previous model version, for migrations.
        public var previousVersionKeyPath: String? { details?.previousVersionKeyPath }
        /// Whether the initial value is computed anew for every inserted object.
        var isDynamic: Bool { details?.isDynamic ?? false }
        /// The custom getter and setter, when declared.
        @usableFromInline var accessors: FieldAccessors<V>? {
            @inline(__always) get { details?.accessors }
        }

        /// Inlinable, like the property wrapper's common initializers, so that declaring a
        /// field (which every object's initialization does) is specialized for its value type.
        @inlinable
        init(_ keyPath: String, previousVersionKeyPath: () -> String?, initialValue: @escaping () -> V, isDynamic: Bool, accessors: FieldAccessors<V>?, affectedByKeyPaths: () -> Set<String>) {
            self.keyPath = keyPath
            self.initialValue = initialValue
            self.details = StoredFieldDeclaration.details(isDynamic: isDynamic, previousVersionKeyPath: previousVersionKeyPath, affectedByKeyPaths: affectedByKeyPaths, accessors: accessors)
        }

        /// A field declared with a fixed initial value and nothing else.
        @inlinable
        init(_ keyPath: String, initialValue: @escaping () -> V) {
            self.keyPath = keyPath
            self.initialValue = initialValue
            self.details = nil
        }

        /// The value of a meta instance (the initial value), or of a stored value the type
        /// cannot represent (reported, then the initial value).
        @usableFromInline
        static func uncommonValue(of instance: CoreStoreObject, field: Self) -> V {
            guard let stored = FieldDefinition.cs_storedValue(of: instance, forKey: field.keyPath) else { return field.initialValue() }
            if let value = V.cs_fromStoredValue(stored) { return value }
            FieldDefinition.cs_reportUnreadable(stored, of: instance, forKey: field.keyPath, as: V.self)
            return field.initialValue()
        }

        /// This field of `object` as a custom accessor sees it.
        func proxy<O: CoreStoreObject>(for object: O) -> ObjectProxy<O>.FieldProxy<V> {
            let field = self
            return ObjectProxy<O>.FieldProxy(
                getValue: {
                    if let getter = field.accessors?.getter, object.cs_state != nil { return getter(object) }
                    return Self.primitiveValue(of: object, field: field) ?? field.initialValue()
                },
                setValue: { value in
                    if let setter = field.accessors?.setter, object.cs_state != nil { return setter(object, value) }
                    FieldDefinition.cs_setStoredValue(value.cs_toStoredValue(), of: object, forKey: field.keyPath)
                },
                getPrimitive: { Self.primitiveValue(of: object, field: field) },
                setPrimitive: { value in
                    if let value {
                        FieldDefinition.cs_setStoredValue(value.cs_toStoredValue(), of: object, forKey: field.keyPath)
                    } else if V.cs_isOptional {
                        FieldDefinition.cs_setStoredValue(.null, of: object, forKey: field.keyPath)
                    } else {
                        Log.assert(false, "nil cannot be stored in the non-optional attribute '\(field.keyPath)'; the value was ignored.")
                    }
                }
            )
        }

        /// The stored value of `instance`, around any accessor; `nil` for a meta instance.
        static func primitiveValue(of instance: CoreStoreObject, field: Self) -> V? {
            guard let stored = FieldDefinition.cs_storedValue(of: instance, forKey: field.keyPath) else { return nil }
            if let value = V.cs_fromStoredValue(stored) { return value }
            FieldDefinition.cs_reportUnreadable(stored, of: instance, forKey: field.keyPath, as: V.self)
            return nil
        }

        var cs_affectedByKeyPaths: Set<String> { details?.affectedByKeyPaths ?? [] }

        var cs_fieldKind: FieldKind {
            let initial = initialValue
            return .attribute(AttributeField(
                name: keyPath, type: V.cs_attributeType, isOptional: V.cs_isOptional,
                initialValue: { initial().cs_toStoredValue() }, isDynamic: isDynamic,
                renamingIdentifier: previousVersionKeyPath
            ))
        }
    }
}

extension FieldDefinition {
    /// `stored` as a `V`, or `nil` when `V` cannot represent it (inlined into the getters).
    @inlinable @inline(__always)
    static func cs_value<V: FieldStorableType>(_ stored: Value, as type: V.Type) -> V? {
        V.cs_fromStoredValue(stored)
    }

    /// The stored value of attribute `key` of `instance`; `nil` for a meta instance.
    @usableFromInline
    static func cs_storedValue(of instance: CoreStoreObject, forKey key: String) -> Value? {
        instance.storedValue(forKey: key)
    }

    /// Sets attribute `key` of `instance` (reporting misuse through the context).
    @usableFromInline
    static func cs_setStoredValue(_ value: Value, of instance: CoreStoreObject, forKey key: String) {
        instance.cs_writableState(forKey: key)?.setAttributeValue(value, forKey: key)
    }

    /// Reports a stored value that the property's type cannot represent.
    @usableFromInline
    static func cs_reportUnreadable(_ stored: Value, of instance: CoreStoreObject, forKey key: String, as type: Any.Type) {
        let entity = instance.cs_state?.entity.name ?? "\(Swift.type(of: instance))"
        Log.assert(false, "The stored value \(stored) of '\(entity).\(key)' cannot be read as \(type); using the initial value.")
    }
}

extension FieldContainer {
    /// The property wrapper of a stored attribute of a ``FieldStorableType``.
    ///
    /// ```swift
    /// @Field.Stored("title") var title: String = "Mr."
    /// @Field.Stored("created", dynamicInitialValue: { Date() }) var created: Date
    /// @Field.Stored("nickname") var nickname: String?
    /// ```
    /// A fixed initial value (`= "Mr."`) is read once, when the schema is built, and is the
    /// attribute's default, as in CoreStore; `dynamicInitialValue` runs for every inserted
    /// object. Reading the property of an object fetched from a `DataStack` or a transaction
    /// returns its current value; setting it is only allowed inside a transaction.
    @propertyWrapper
    public struct Stored<V: FieldStorableType>: FieldDescribing {
        /// The field's description: `$title`, named in clauses by `\Person.$title`.
        public let projectedValue: FieldDefinition.Stored<V>

        /// Declares an attribute with a fixed initial value (the attribute's default).
        ///
        /// `versionHashModifier` is accepted for source compatibility and has no effect: a
        /// store's model hash follows what it stores. `affectedByKeyPaths` names the keys whose
        /// changes observers also report as changes of this field.
        @inlinable
        public init(
            wrappedValue initialValue: @autoclosure @escaping () -> V, _ keyPath: KeyPathString,
            versionHashModifier: @autoclosure @escaping () -> String? = nil,
            previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
            affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = []
        ) {
            self.projectedValue = FieldDefinition.Stored(keyPath, previousVersionKeyPath: previousVersionKeyPath, initialValue: initialValue, isDynamic: false,
                      accessors: nil, affectedByKeyPaths: affectedByKeyPaths)
        }

        /// Declares an attribute with a fixed initial value and nothing else: the common
        /// declaration, whose field keeps only its key and initial value in every object.
        @inlinable
        public init(wrappedValue initialValue: @autoclosure @escaping () -> V, _ keyPath: KeyPathString) {
            self.projectedValue = FieldDefinition.Stored(keyPath, initialValue: initialValue)
        }

        /// Declares an attribute whose initial value is computed anew for every inserted object.
        @inlinable
        public init(
            _ keyPath: KeyPathString,
            versionHashModifier: @autoclosure @escaping () -> String? = nil,
            previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
            affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = [],
            dynamicInitialValue: @escaping () -> V
        ) {
            self.projectedValue = FieldDefinition.Stored(keyPath, previousVersionKeyPath: previousVersionKeyPath, initialValue: dynamicInitialValue, isDynamic: true,
                      accessors: nil, affectedByKeyPaths: affectedByKeyPaths)
        }

        /// Declares an attribute with a fixed initial value and a custom getter or setter,
        /// which see the object as an ``ObjectProxy`` and this field as a
        /// ``ObjectProxy/FieldProxy`` (read and write `field.primitiveValue` for what is stored).
        ///
        public init(
            wrappedValue initialValue: @autoclosure @escaping () -> V, _ keyPath: KeyPathString,
            versionHashModifier: @autoclosure @escaping () -> String? = nil,
            previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
            customGetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>) -> V)? = nil,
            customSetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>, _ newValue: V) -> Void)? = nil,
            affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = []
        ) {
            let plain = FieldDefinition.Stored(keyPath, previousVersionKeyPath: previousVersionKeyPath, initialValue: initialValue, isDynamic: false, accessors: nil, affectedByKeyPaths: { [] })
            self.projectedValue = FieldDefinition.Stored(keyPath, previousVersionKeyPath: previousVersionKeyPath, initialValue: initialValue, isDynamic: false,
                      accessors: FieldAccessors.make(getter: customGetter, setter: customSetter, field: { plain.proxy(for: $0) }),
                      affectedByKeyPaths: affectedByKeyPaths)
        }

        /// Declares an attribute with a dynamic initial value and a custom getter or setter.
        public init(
            _ keyPath: KeyPathString,
            versionHashModifier: @autoclosure @escaping () -> String? = nil,
            previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
            customGetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>) -> V)? = nil,
            customSetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>, _ newValue: V) -> Void)? = nil,
            affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = [],
            dynamicInitialValue: @escaping () -> V
        ) {
            let plain = FieldDefinition.Stored(keyPath, previousVersionKeyPath: previousVersionKeyPath, initialValue: dynamicInitialValue, isDynamic: true, accessors: nil, affectedByKeyPaths: { [] })
            self.projectedValue = FieldDefinition.Stored(keyPath, previousVersionKeyPath: previousVersionKeyPath, initialValue: dynamicInitialValue, isDynamic: true,
                      accessors: FieldAccessors.make(getter: customGetter, setter: customSetter, field: { plain.proxy(for: $0) }),
                      affectedByKeyPaths: affectedByKeyPaths)
        }

        /// Unavailable: the value lives in the object's context, reached through the enclosing
        /// instance.
        @available(*, unavailable)
        public var wrappedValue: V {
            get { projectedValue.initialValue() }
            set { _ = newValue }
        }

        /// Reads and writes the value through the object's context.
        ///
        /// Inlinable so that it is specialized for each model property in the module that
        /// declares it: reading the field's key then folds into a plain stored-property access
        /// instead of a generic key-path projection (which dominated fetch-and-read loops).
        @inlinable @inline(__always)
        public static subscript(
            _enclosingInstance instance: O,
            wrapped wrappedKeyPath: ReferenceWritableKeyPath<O, V>,
            storage storageKeyPath: ReferenceWritableKeyPath<O, Self>
        ) -> V {
            get {
                // The common path, inlined: no custom getter, the ordinal from the key's bits
                // (copying the field, or even its key, would retain them on every read), and the
                // value converted in place under the object's lock (neither the values array nor
                // the stored value is copied). Everything else is out of line, so that the
                // inlined getter stays small.
                if instance[keyPath: storageKeyPath].projectedValue.accessors == nil,
                   let ordinal = instance.attributeKeys?.ordinal(ofBits: instance[keyPath: storageKeyPath].projectedValue.keyBits),
                   let value = instance.valuesLock.withLock({ FieldDefinition.cs_value(instance.attributes[ordinal], as: V.self) }) {
                    return value
                }
                return otherValue(of: instance, field: instance[keyPath: storageKeyPath].projectedValue)
            }
            set {
                // As the getter: the common path inlined, the rest out of line.
                if instance[keyPath: storageKeyPath].projectedValue.accessors == nil,
                   let ordinal = instance.attributeKeys?.ordinal(ofBits: instance[keyPath: storageKeyPath].projectedValue.keyBits) {
                    instance.setAttributeValue(newValue.cs_toStoredValue(), ordinal: ordinal)
                    return
                }
                setOtherValue(newValue, of: instance, field: instance[keyPath: storageKeyPath].projectedValue)
            }
        }

        /// The getter's uncommon cases: a custom getter, a meta instance, a key spelled by
        /// another string than the schema's, or a value `V` cannot represent.
        @usableFromInline @inline(never)
        static func otherValue(of instance: O, field: FieldDefinition.Stored<V>) -> V {
            if let getter = field.accessors?.getter, instance.attributeKeys != nil {
                return getter(instance)
            }
            if let ordinal = instance.attributeKeys?.ordinal(ofBits: field.keyBits),
               let value = instance.valuesLock.withLock({ FieldDefinition.cs_value(instance.attributes[ordinal], as: V.self) }) {
                return value
            }
            return FieldDefinition.Stored<V>.uncommonValue(of: instance, field: field)
        }

        /// The setter's uncommon cases: a custom setter, a meta instance, or a key spelled by
        /// another string than the schema's.
        @usableFromInline @inline(never)
        static func setOtherValue(_ newValue: V, of instance: O, field: FieldDefinition.Stored<V>) {
            if let setter = field.accessors?.setter, instance.attributeKeys != nil {
                setter(instance, newValue)
                return
            }
            if let ordinal = instance.attributeKeys?.ordinal(ofBits: field.keyBits) {
                instance.setAttributeValue(newValue.cs_toStoredValue(), ordinal: ordinal)
                return
            }
            FieldDefinition.cs_setStoredValue(newValue.cs_toStoredValue(), of: instance, forKey: field.keyPath)
        }

        var cs_fieldKind: FieldKind { projectedValue.cs_fieldKind }
        var cs_affectedByKeyPaths: Set<String> { projectedValue.cs_affectedByKeyPaths }
    }
}

extension FieldContainer.Stored where V: ExpressibleByNilLiteral {
    /// Declares an optional attribute that starts as `nil`: `@Field.Stored("nickname") var nickname: String?`.
    @inlinable
    public init(
        _ keyPath: KeyPathString,
        versionHashModifier: @autoclosure @escaping () -> String? = nil,
        previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
        affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = []
    ) {
        self.init(wrappedValue: nil, keyPath, previousVersionKeyPath: previousVersionKeyPath(), affectedByKeyPaths: affectedByKeyPaths())
    }

    /// Declares an optional attribute that starts as `nil` and says nothing else: a field that
    /// keeps only its key and initial value in every object.
    @inlinable
    public init(_ keyPath: KeyPathString) {
        self.init(wrappedValue: nil, keyPath)
    }
}

