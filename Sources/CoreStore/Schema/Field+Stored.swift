import CoreStoreStorage

extension Field {
    /// A stored attribute of a ``FieldStorableType``.
    ///
    /// ```swift
    /// @Field.Stored("title") var title: String = "Mr."
    /// @Field.Stored("created", dynamicInitialValue: { Date() }) var created: Date
    /// @Field.Stored("nickname") var nickname: String?
    /// ```
    /// A fixed initial value (`= "Mr."`) is read once, when the schema is built, and is the
    /// attribute's default, as in CoreStore; `dynamicInitialValue` runs for every inserted
    /// object. Reading the property of an object
    /// fetched from a `DataStack` or a transaction returns its current value; setting it is only
    /// allowed inside a transaction.
    @propertyWrapper
    public struct Stored<V: FieldStorableType>: FieldDescribing {
        /// The stored key.
        public let keyPath: String
        /// The key this attribute had in the previous model version, for migrations.
        public let previousVersionKeyPath: String?
        @usableFromInline let initialValue: () -> V
        let isDynamic: Bool

        /// Declares an attribute with a fixed initial value.
        public init(wrappedValue initialValue: @autoclosure @escaping () -> V, _ keyPath: String, previousVersionKeyPath: String? = nil) {
            self.keyPath = keyPath
            self.previousVersionKeyPath = previousVersionKeyPath
            self.initialValue = initialValue
            self.isDynamic = false
        }

        /// Declares an attribute whose initial value is computed anew for every inserted object.
        public init(_ keyPath: String, dynamicInitialValue: @escaping () -> V, previousVersionKeyPath: String? = nil) {
            self.keyPath = keyPath
            self.previousVersionKeyPath = previousVersionKeyPath
            self.initialValue = dynamicInitialValue
            self.isDynamic = true
        }

        /// Unavailable: the value lives in the object's context, reached through the enclosing
        /// instance.
        @available(*, unavailable)
        public var wrappedValue: V {
            get { initialValue() }
            set { _ = newValue }
        }

        /// The field itself, so that `\Person.$name` can be used in clauses.
        public var projectedValue: Self { self }

        /// Reads and writes the value through the object's context.
        ///
        /// Inlinable so that it is specialized for each model property in the module that
        /// declares it: reading the field's key then folds into a plain stored-property access
        /// instead of a generic key-path projection (which dominated fetch-and-read loops).
        @inlinable @inline(__always)
        public static subscript<O: CoreStoreObject>(
            _enclosingInstance instance: O,
            wrapped wrappedKeyPath: ReferenceWritableKeyPath<O, V>,
            storage storageKeyPath: ReferenceWritableKeyPath<O, Self>
        ) -> V {
            get {
                // Only the key is read on the common path: copying the whole field would retain
                // its strings and closure on every read.
                let key = instance[keyPath: storageKeyPath].keyPath
                if let value = Field.cs_currentValue(of: instance, forKey: key, as: V.self) {
                    return value
                }
                return uncommonValue(of: instance, field: instance[keyPath: storageKeyPath])
            }
            set {
                Field.cs_setStoredValue(newValue.cs_toStoredValue(), of: instance, forKey: instance[keyPath: storageKeyPath].keyPath)
            }
        }

        /// The value of a meta instance (the initial value), or of a stored value the type
        /// cannot represent (reported, then the initial value).
        @usableFromInline
        static func uncommonValue(of instance: CoreStoreObject, field: Self) -> V {
            guard let stored = Field.cs_storedValue(of: instance, forKey: field.keyPath) else { return field.initialValue() }
            if let value = V.cs_fromStoredValue(stored) { return value }
            Field.cs_reportUnreadable(stored, of: instance, forKey: field.keyPath, as: V.self)
            return field.initialValue()
        }

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

extension Field.Stored where V: ExpressibleByNilLiteral {
    /// Declares an optional attribute that starts as `nil`: `@Field.Stored("nickname") var nickname: String?`.
    public init(_ keyPath: String, previousVersionKeyPath: String? = nil) {
        self.init(wrappedValue: nil, keyPath, previousVersionKeyPath: previousVersionKeyPath)
    }
}

extension Field {
    /// The value of attribute `key` of `instance` as a `V`, read in place under the object's
    /// lock (the stored value is neither copied nor retained); `nil` for a meta instance, an
    /// unknown key or a stored value `V` cannot represent, which the caller handles.
    @inlinable @inline(__always)
    static func cs_currentValue<V: FieldStorableType>(of instance: CoreStoreObject, forKey key: String, as type: V.Type) -> V? {
        guard let ordinal = instance.attributeOrdinal(forKey: key) else { return nil }
        return instance.valuesLock.withLock {
            instance.attributes.withUnsafeBufferPointer { V.cs_fromStoredValue($0[ordinal]) }
        }
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
