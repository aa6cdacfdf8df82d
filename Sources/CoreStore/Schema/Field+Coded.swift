import Foundation
import CoreStoreStorage

extension FieldDefinition {
    /// The description of an attribute stored as bytes produced by a coder: what `$name` is, and what
    /// `\Person.$name` names in clauses. Declared with the property wrapper
    /// ``FieldContainer/Coded``.
    public struct Coded<V>: FieldDescribing {
        /// The stored key.
        public let keyPath: String
        /// The key this attribute had in the previous model version, for migrations.
        public let previousVersionKeyPath: String?
        let initialValue: () -> V
        let isDynamic: Bool
        let encode: (V) -> Data?
        let decode: (Data?) -> V?
        /// The custom getter and setter, when declared.
        let accessors: FieldAccessors<V>?
        /// The keys whose changes observers also report as changes of this field.
        let affectedByKeyPaths: () -> Set<String>

        init(
            wrappedValue initialValue: @autoclosure @escaping () -> V, _ keyPath: KeyPathString,
            versionHashModifier: @autoclosure @escaping () -> String? = nil,
            previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
            coder: (encode: (V) -> Data?, decode: (Data?) -> V),
            affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = []
        ) {
            let decode = coder.decode
            self.init(keyPath, previousVersionKeyPath: previousVersionKeyPath(), initialValue: initialValue, isDynamic: false, encode: coder.encode, decode: { decode($0) }, accessors: nil, affectedByKeyPaths: affectedByKeyPaths)
        }

        init(
            _ keyPath: KeyPathString, versionHashModifier: @autoclosure @escaping () -> String? = nil,
            previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
            coder: (encode: (V) -> Data?, decode: (Data?) -> V),
            affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = [], dynamicInitialValue: @escaping () -> V
        ) {
            let decode = coder.decode
            self.init(keyPath, previousVersionKeyPath: previousVersionKeyPath(), initialValue: dynamicInitialValue, isDynamic: true, encode: coder.encode, decode: { decode($0) }, accessors: nil, affectedByKeyPaths: affectedByKeyPaths)
        }

        init<Coder: FieldCoderType>(
            wrappedValue initialValue: @autoclosure @escaping () -> V, _ keyPath: KeyPathString,
            versionHashModifier: @autoclosure @escaping () -> String? = nil,
            previousVersionKeyPath: @autoclosure @escaping () -> String? = nil, coder fieldCoderType: Coder.Type,
            affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = []
        ) where Coder.FieldStoredValue == V {
            self.init(keyPath, previousVersionKeyPath: previousVersionKeyPath(), initialValue: initialValue, isDynamic: false,
                      encode: { Coder.encodeToStoredData($0) }, decode: Coder.decodeFromStoredData,
                      accessors: nil, affectedByKeyPaths: affectedByKeyPaths)
        }

        init<Coder: FieldCoderType>(
            _ keyPath: KeyPathString, versionHashModifier: @autoclosure @escaping () -> String? = nil,
            previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
            coder fieldCoderType: Coder.Type,
            affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = [], dynamicInitialValue: @escaping () -> V
        ) where Coder.FieldStoredValue == V {
            self.init(keyPath, previousVersionKeyPath: previousVersionKeyPath(), initialValue: dynamicInitialValue, isDynamic: true,
                      encode: { Coder.encodeToStoredData($0) }, decode: Coder.decodeFromStoredData,
                      accessors: nil, affectedByKeyPaths: affectedByKeyPaths)
        }

        init<O: CoreStoreObject>(
            wrappedValue initialValue: @autoclosure @escaping () -> V, _ keyPath: KeyPathString,
            versionHashModifier: @autoclosure @escaping () -> String? = nil,
            previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
            coder: (encode: (V) -> Data?, decode: (Data?) -> V),
            customGetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>) -> V)? = nil,
            customSetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>, _ newValue: V) -> Void)? = nil,
            affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = []
        ) {
            self.init(adding: customGetter, customSetter, affectedByKeyPaths,
                      to: Self(wrappedValue: initialValue(), keyPath, previousVersionKeyPath: previousVersionKeyPath(), coder: coder))
        }

        init<O: CoreStoreObject>(
            _ keyPath: KeyPathString,
            versionHashModifier: @autoclosure @escaping () -> String? = nil,
            previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
            coder: (encode: (V) -> Data?, decode: (Data?) -> V),
            customGetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>) -> V)? = nil,
            customSetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>, _ newValue: V) -> Void)? = nil,
            affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = [],
            dynamicInitialValue: @escaping () -> V
        ) {
            self.init(adding: customGetter, customSetter, affectedByKeyPaths,
                      to: Self(keyPath, previousVersionKeyPath: previousVersionKeyPath(), coder: coder, dynamicInitialValue: dynamicInitialValue))
        }

        init<O: CoreStoreObject, Coder: FieldCoderType>(
            wrappedValue initialValue: @autoclosure @escaping () -> V, _ keyPath: KeyPathString,
            versionHashModifier: @autoclosure @escaping () -> String? = nil,
            previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
            coder fieldCoderType: Coder.Type,
            customGetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>) -> V)? = nil,
            customSetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>, _ newValue: V) -> Void)? = nil,
            affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = []
        ) where Coder.FieldStoredValue == V {
            self.init(adding: customGetter, customSetter, affectedByKeyPaths,
                      to: Self(wrappedValue: initialValue(), keyPath, previousVersionKeyPath: previousVersionKeyPath(), coder: fieldCoderType))
        }

        init<O: CoreStoreObject, Coder: FieldCoderType>(
            _ keyPath: KeyPathString,
            versionHashModifier: @autoclosure @escaping () -> String? = nil,
            previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
            coder fieldCoderType: Coder.Type,
            customGetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>) -> V)? = nil,
            customSetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>, _ newValue: V) -> Void)? = nil,
            affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = [],
            dynamicInitialValue: @escaping () -> V
        ) where Coder.FieldStoredValue == V {
            self.init(adding: customGetter, customSetter, affectedByKeyPaths,
                      to: Self(keyPath, previousVersionKeyPath: previousVersionKeyPath(), coder: fieldCoderType, dynamicInitialValue: dynamicInitialValue))
        }

        /// `plain` with custom accessors and the keys that affect it.
        init<O: CoreStoreObject>(
            adding getter: ((ObjectProxy<O>, ObjectProxy<O>.FieldProxy<V>) -> V)?,
            _ setter: ((ObjectProxy<O>, ObjectProxy<O>.FieldProxy<V>, V) -> Void)?,
            _ affectedByKeyPaths: @escaping () -> Set<String>, to plain: Self
        ) {
            self.init(plain.keyPath, previousVersionKeyPath: plain.previousVersionKeyPath, initialValue: plain.initialValue, isDynamic: plain.isDynamic,
                      encode: plain.encode, decode: plain.decode,
                      accessors: FieldAccessors.make(getter: getter, setter: setter, field: { plain.proxy(for: $0) }),
                      affectedByKeyPaths: affectedByKeyPaths)
        }

        init(
            _ keyPath: String, previousVersionKeyPath: String?, initialValue: @escaping () -> V, isDynamic: Bool,
            encode: @escaping (V) -> Data?, decode: @escaping (Data?) -> V?, accessors: FieldAccessors<V>?, affectedByKeyPaths: @escaping () -> Set<String>
        ) {
            self.keyPath = keyPath
            self.previousVersionKeyPath = previousVersionKeyPath
            self.initialValue = initialValue
            self.isDynamic = isDynamic
            self.encode = encode
            self.decode = decode
            self.accessors = accessors
            self.affectedByKeyPaths = affectedByKeyPaths
        }

        /// The decoded stored value of `instance`, around any accessor; `nil` for a meta
        /// instance or bytes that do not decode (reported).
        func storedValue(of instance: CoreStoreObject) -> V? {
            guard let state = instance.cs_state else { return nil }
            let data: Data?
            switch state.attributeValue(forKey: keyPath) {
            case .bytes(let d): data = d
            default: data = nil
            }
            if let value = decode(data) { return value }
            Log.assert(false, "The stored bytes of '\(state.entity.name).\(keyPath)' could not be decoded as \(V.self); using the initial value.")
            return nil
        }

        /// Encodes and stores `value` in `instance`, around any accessor.
        func store(_ value: V, in instance: CoreStoreObject) {
            guard let state = instance.cs_writableState(forKey: keyPath) else { return }
            state.setAttributeValue(encode(value).map(Value.bytes) ?? .null, forKey: keyPath)
        }

        /// This field of `object` as a custom accessor sees it.
        func proxy<O: CoreStoreObject>(for object: O) -> ObjectProxy<O>.FieldProxy<V> {
            let field = self
            return ObjectProxy<O>.FieldProxy(
                getValue: {
                    if let getter = field.accessors?.getter, object.cs_state != nil { return getter(object) }
                    return field.storedValue(of: object) ?? field.initialValue()
                },
                setValue: { value in
                    if let setter = field.accessors?.setter, object.cs_state != nil { return setter(object, value) }
                    field.store(value, in: object)
                },
                getPrimitive: { field.storedValue(of: object) },
                setPrimitive: { value in
                    guard let state = object.cs_writableState(forKey: field.keyPath) else { return }
                    state.setAttributeValue(value.flatMap(field.encode).map(Value.bytes) ?? .null, forKey: field.keyPath)
                }
            )
        }

        var cs_affectedByKeyPaths: Set<String> { affectedByKeyPaths() }

        var cs_fieldKind: FieldKind {
            let initial = initialValue, encode = self.encode
            return .attribute(AttributeField(
                name: keyPath, type: .bytes, isOptional: true,
                initialValue: { encode(initial()).map(Value.bytes) ?? .null }, isDynamic: isDynamic,
                renamingIdentifier: previousVersionKeyPath
            ))
        }
    }
}

extension FieldDefinition.Coded where V: FieldOptionalType {
    init<Coder: FieldCoderType>(
        wrappedValue initialValue: @autoclosure @escaping () -> V = nil, _ keyPath: KeyPathString,
        versionHashModifier: @autoclosure @escaping () -> String? = nil,
        previousVersionKeyPath: @autoclosure @escaping () -> String? = nil, coder: Coder.Type,
        affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = []
    ) where Coder.FieldStoredValue == V.Wrapped {
        self.init(keyPath, previousVersionKeyPath: previousVersionKeyPath(), initialValue: initialValue, isDynamic: false,
                  encode: { Coder.encodeToStoredData($0.cs_wrappedValue) },
                  decode: { data in data == nil ? V.cs_fromWrappedValue(nil) : Coder.decodeFromStoredData(data).map { V.cs_fromWrappedValue($0) } },
                  accessors: nil, affectedByKeyPaths: affectedByKeyPaths)
    }

    init<Coder: FieldCoderType>(
        _ keyPath: KeyPathString, versionHashModifier: @autoclosure @escaping () -> String? = nil,
        previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
        coder: Coder.Type,
        affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = [], dynamicInitialValue: @escaping () -> V
    ) where Coder.FieldStoredValue == V.Wrapped {
        self.init(keyPath, previousVersionKeyPath: previousVersionKeyPath(), initialValue: dynamicInitialValue, isDynamic: true,
                  encode: { Coder.encodeToStoredData($0.cs_wrappedValue) },
                  decode: { data in data == nil ? V.cs_fromWrappedValue(nil) : Coder.decodeFromStoredData(data).map { V.cs_fromWrappedValue($0) } },
                  accessors: nil, affectedByKeyPaths: affectedByKeyPaths)
    }
}

extension FieldDefinition.Coded where V: FieldOptionalType {
    init<O: CoreStoreObject, Coder: FieldCoderType>(
        wrappedValue initialValue: @autoclosure @escaping () -> V = nil, _ keyPath: KeyPathString,
        versionHashModifier: @autoclosure @escaping () -> String? = nil,
        previousVersionKeyPath: @autoclosure @escaping () -> String? = nil, coder: Coder.Type,
        customGetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>) -> V)? = nil,
        customSetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>, _ newValue: V) -> Void)? = nil,
        affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = []
    ) where Coder.FieldStoredValue == V.Wrapped {
        self.init(adding: customGetter, customSetter, affectedByKeyPaths,
                  to: Self(wrappedValue: initialValue(), keyPath, previousVersionKeyPath: previousVersionKeyPath(), coder: coder))
    }

    init<O: CoreStoreObject, Coder: FieldCoderType>(
        _ keyPath: KeyPathString, versionHashModifier: @autoclosure @escaping () -> String? = nil,
        previousVersionKeyPath: @autoclosure @escaping () -> String? = nil, coder: Coder.Type,
        customGetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>) -> V)? = nil,
        customSetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>, _ newValue: V) -> Void)? = nil,
        affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = [],
        dynamicInitialValue: @escaping () -> V
    ) where Coder.FieldStoredValue == V.Wrapped {
        self.init(adding: customGetter, customSetter, affectedByKeyPaths,
                  to: Self(keyPath, previousVersionKeyPath: previousVersionKeyPath(), coder: coder, dynamicInitialValue: dynamicInitialValue))
    }
}

/// An `Optional`, as the optional forms of ``FieldDefinition/Coded`` see it.
public protocol FieldOptionalType: ExpressibleByNilLiteral {
    /// The type inside.
    associatedtype Wrapped
    /// The value inside, or `nil`.
    var cs_wrappedValue: Wrapped? { get }
    /// The optional holding `value`.
    static func cs_fromWrappedValue(_ value: Wrapped?) -> Self
}

extension Optional: FieldOptionalType {
    /// `self`.
    public var cs_wrappedValue: Wrapped? { self }
    /// `value`.
    public static func cs_fromWrappedValue(_ value: Wrapped?) -> Self { value }
}

extension FieldContainer {
    /// The property wrapper of an attribute of any type, stored as bytes produced by a coder.
    ///
    /// ```swift
    /// @Field.Coded("tags", coder: FieldCoders.Json.self) var tags: [String] = []
    /// @Field.Coded("color", coder: (encode: { $0.hexData }, decode: { $0.flatMap(Color.init(hexData:)) ?? .black }))
    /// var color: Color = .black
    /// @Field.Coded("settings", coder: FieldCoders.Plist.self) var settings: Settings?
    /// ```
    /// A value a ``FieldCoderType`` cannot decode yields the initial value (and an assertion in
    /// the log); a `(encode:decode:)` pair decides itself what unreadable bytes give.
    @propertyWrapper
    public struct Coded<V>: FieldDescribing {
        /// The field's description: what `$name` is, and what `\Person.$name` names.
        public let projectedValue: FieldDefinition.Coded<V>

        /// Declares a coded attribute with a fixed initial value and custom closures; `decode`
        /// is given `nil` when nothing is stored.
        public init(
            wrappedValue initialValue: @autoclosure @escaping () -> V, _ keyPath: KeyPathString,
            versionHashModifier: @autoclosure @escaping () -> String? = nil,
            previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
            coder: (encode: (V) -> Data?, decode: (Data?) -> V),
            affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = []
        ) {
            self.projectedValue = FieldDefinition.Coded<V>(wrappedValue: initialValue(), keyPath, versionHashModifier: versionHashModifier(), previousVersionKeyPath: previousVersionKeyPath(), coder: coder, affectedByKeyPaths: affectedByKeyPaths())
        }

        /// Declares a coded attribute with custom closures whose initial value is computed for
        /// every inserted object.
        public init(
            _ keyPath: KeyPathString, versionHashModifier: @autoclosure @escaping () -> String? = nil,
            previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
            coder: (encode: (V) -> Data?, decode: (Data?) -> V),
            affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = [], dynamicInitialValue: @escaping () -> V
        ) {
            self.projectedValue = FieldDefinition.Coded<V>(keyPath, versionHashModifier: versionHashModifier(), previousVersionKeyPath: previousVersionKeyPath(), coder: coder, affectedByKeyPaths: affectedByKeyPaths(), dynamicInitialValue: dynamicInitialValue)
        }

        /// Declares a coded attribute with a fixed initial value and a ``FieldCoderType``.
        public init<Coder: FieldCoderType>(
            wrappedValue initialValue: @autoclosure @escaping () -> V, _ keyPath: KeyPathString,
            versionHashModifier: @autoclosure @escaping () -> String? = nil,
            previousVersionKeyPath: @autoclosure @escaping () -> String? = nil, coder fieldCoderType: Coder.Type,
            affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = []
        ) where Coder.FieldStoredValue == V {
            self.projectedValue = FieldDefinition.Coded<V>(wrappedValue: initialValue(), keyPath, versionHashModifier: versionHashModifier(), previousVersionKeyPath: previousVersionKeyPath(), coder: fieldCoderType, affectedByKeyPaths: affectedByKeyPaths())
        }

        /// Declares a coded attribute with a ``FieldCoderType`` whose initial value is computed
        /// for every inserted object.
        public init<Coder: FieldCoderType>(
            _ keyPath: KeyPathString, versionHashModifier: @autoclosure @escaping () -> String? = nil,
            previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
            coder fieldCoderType: Coder.Type,
            affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = [], dynamicInitialValue: @escaping () -> V
        ) where Coder.FieldStoredValue == V {
            self.projectedValue = FieldDefinition.Coded<V>(keyPath, versionHashModifier: versionHashModifier(), previousVersionKeyPath: previousVersionKeyPath(), coder: fieldCoderType, affectedByKeyPaths: affectedByKeyPaths(), dynamicInitialValue: dynamicInitialValue)
        }

        /// Declares a coded attribute with custom closures, a fixed initial value and a custom
        /// getter or setter, which see the object as an ``ObjectProxy`` and this field as a
        /// ``ObjectProxy/FieldProxy`` (`field.primitiveValue` is the decoded stored value).
        public init(
            wrappedValue initialValue: @autoclosure @escaping () -> V, _ keyPath: KeyPathString,
            versionHashModifier: @autoclosure @escaping () -> String? = nil,
            previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
            coder: (encode: (V) -> Data?, decode: (Data?) -> V),
            customGetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>) -> V)? = nil,
            customSetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>, _ newValue: V) -> Void)? = nil,
            affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = []
        ) {
            self.projectedValue = FieldDefinition.Coded<V>(wrappedValue: initialValue(), keyPath, versionHashModifier: versionHashModifier(), previousVersionKeyPath: previousVersionKeyPath(), coder: coder, customGetter: customGetter, customSetter: customSetter, affectedByKeyPaths: affectedByKeyPaths())
        }

        /// Declares a coded attribute with custom closures, a dynamic initial value and a custom
        /// getter or setter.
        public init(
            _ keyPath: KeyPathString,
            versionHashModifier: @autoclosure @escaping () -> String? = nil,
            previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
            coder: (encode: (V) -> Data?, decode: (Data?) -> V),
            customGetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>) -> V)? = nil,
            customSetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>, _ newValue: V) -> Void)? = nil,
            affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = [],
            dynamicInitialValue: @escaping () -> V
        ) {
            self.projectedValue = FieldDefinition.Coded<V>(keyPath, versionHashModifier: versionHashModifier(), previousVersionKeyPath: previousVersionKeyPath(), coder: coder, customGetter: customGetter, customSetter: customSetter, affectedByKeyPaths: affectedByKeyPaths(), dynamicInitialValue: dynamicInitialValue)
        }

        /// Declares a coded attribute with a ``FieldCoderType``, a fixed initial value and a
        /// custom getter or setter (see the closure-coder form).
        public init<Coder: FieldCoderType>(
            wrappedValue initialValue: @autoclosure @escaping () -> V, _ keyPath: KeyPathString,
            versionHashModifier: @autoclosure @escaping () -> String? = nil,
            previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
            coder fieldCoderType: Coder.Type,
            customGetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>) -> V)? = nil,
            customSetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>, _ newValue: V) -> Void)? = nil,
            affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = []
        ) where Coder.FieldStoredValue == V {
            self.projectedValue = FieldDefinition.Coded<V>(wrappedValue: initialValue(), keyPath, versionHashModifier: versionHashModifier(), previousVersionKeyPath: previousVersionKeyPath(), coder: fieldCoderType, customGetter: customGetter, customSetter: customSetter, affectedByKeyPaths: affectedByKeyPaths())
        }

        /// Declares a coded attribute with a ``FieldCoderType``, a dynamic initial value and a
        /// custom getter or setter.
        public init<Coder: FieldCoderType>(
            _ keyPath: KeyPathString,
            versionHashModifier: @autoclosure @escaping () -> String? = nil,
            previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
            coder fieldCoderType: Coder.Type,
            customGetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>) -> V)? = nil,
            customSetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>, _ newValue: V) -> Void)? = nil,
            affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = [],
            dynamicInitialValue: @escaping () -> V
        ) where Coder.FieldStoredValue == V {
            self.projectedValue = FieldDefinition.Coded<V>(keyPath, versionHashModifier: versionHashModifier(), previousVersionKeyPath: previousVersionKeyPath(), coder: fieldCoderType, customGetter: customGetter, customSetter: customSetter, affectedByKeyPaths: affectedByKeyPaths(), dynamicInitialValue: dynamicInitialValue)
        }

        /// Unavailable: the value lives in the object's context.
        @available(*, unavailable)
        public var wrappedValue: V {
            get { projectedValue.initialValue() }
            set { _ = newValue }
        }

        /// Decodes and encodes the value through the object's context.
        public static subscript(
            _enclosingInstance instance: O,
            wrapped wrappedKeyPath: ReferenceWritableKeyPath<O, V>,
            storage storageKeyPath: ReferenceWritableKeyPath<O, Self>
        ) -> V {
            get {
                let field = instance[keyPath: storageKeyPath].projectedValue
                if let getter = field.accessors?.getter, instance.cs_state != nil { return getter(instance) }
                return field.storedValue(of: instance) ?? field.initialValue()
            }
            set {
                let field = instance[keyPath: storageKeyPath].projectedValue
                if let setter = field.accessors?.setter, instance.cs_state != nil { return setter(instance, newValue) }
                field.store(newValue, in: instance)
            }
        }

        var cs_fieldKind: FieldKind { projectedValue.cs_fieldKind }
        var cs_affectedByKeyPaths: Set<String> { projectedValue.cs_affectedByKeyPaths }
    }
}

extension FieldContainer.Coded where V: FieldOptionalType {
    /// Declares an optional coded attribute (starting as `nil` unless given) whose
    /// ``FieldCoderType`` codes the wrapped type; `nil` is stored as nothing:
    /// `@Field.Coded("settings", coder: FieldCoders.Plist.self) var settings: Settings?`.
    public init<Coder: FieldCoderType>(
        wrappedValue initialValue: @autoclosure @escaping () -> V = nil, _ keyPath: KeyPathString,
        versionHashModifier: @autoclosure @escaping () -> String? = nil,
        previousVersionKeyPath: @autoclosure @escaping () -> String? = nil, coder: Coder.Type,
        affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = []
    ) where Coder.FieldStoredValue == V.Wrapped {
        self.projectedValue = FieldDefinition.Coded<V>(wrappedValue: initialValue(), keyPath, versionHashModifier: versionHashModifier(), previousVersionKeyPath: previousVersionKeyPath(), coder: coder, affectedByKeyPaths: affectedByKeyPaths())
    }

    /// Declares an optional coded attribute whose initial value is computed for every inserted
    /// object.
    public init<Coder: FieldCoderType>(
        _ keyPath: KeyPathString, versionHashModifier: @autoclosure @escaping () -> String? = nil,
        previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
        coder: Coder.Type,
        affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = [], dynamicInitialValue: @escaping () -> V
    ) where Coder.FieldStoredValue == V.Wrapped {
        self.projectedValue = FieldDefinition.Coded<V>(keyPath, versionHashModifier: versionHashModifier(), previousVersionKeyPath: previousVersionKeyPath(), coder: coder, affectedByKeyPaths: affectedByKeyPaths(), dynamicInitialValue: dynamicInitialValue)
    }

    /// Declares an optional coded attribute with a ``FieldCoderType`` and a custom getter or
    /// setter (see ``FieldDefinition/Coded``'s accessor forms).
    public init<Coder: FieldCoderType>(
        wrappedValue initialValue: @autoclosure @escaping () -> V = nil, _ keyPath: KeyPathString,
        versionHashModifier: @autoclosure @escaping () -> String? = nil,
        previousVersionKeyPath: @autoclosure @escaping () -> String? = nil, coder: Coder.Type,
        customGetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>) -> V)? = nil,
        customSetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>, _ newValue: V) -> Void)? = nil,
        affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = []
    ) where Coder.FieldStoredValue == V.Wrapped {
        self.projectedValue = FieldDefinition.Coded<V>(wrappedValue: initialValue(), keyPath, versionHashModifier: versionHashModifier(), previousVersionKeyPath: previousVersionKeyPath(), coder: coder, customGetter: customGetter, customSetter: customSetter, affectedByKeyPaths: affectedByKeyPaths())
    }

    /// Declares an optional coded attribute with a ``FieldCoderType``, a dynamic initial value
    /// and a custom getter or setter.
    public init<Coder: FieldCoderType>(
        _ keyPath: KeyPathString, versionHashModifier: @autoclosure @escaping () -> String? = nil,
        previousVersionKeyPath: @autoclosure @escaping () -> String? = nil, coder: Coder.Type,
        customGetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>) -> V)? = nil,
        customSetter: ((_ object: ObjectProxy<O>, _ field: ObjectProxy<O>.FieldProxy<V>, _ newValue: V) -> Void)? = nil,
        affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = [],
        dynamicInitialValue: @escaping () -> V
    ) where Coder.FieldStoredValue == V.Wrapped {
        self.projectedValue = FieldDefinition.Coded<V>(keyPath, versionHashModifier: versionHashModifier(), previousVersionKeyPath: previousVersionKeyPath(), coder: coder, customGetter: customGetter, customSetter: customSetter, affectedByKeyPaths: affectedByKeyPaths(), dynamicInitialValue: dynamicInitialValue)
    }
}

