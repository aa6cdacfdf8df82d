import Foundation
import CoreStoreStorage

extension Field {
    /// An attribute of any type, stored as bytes produced by a coder.
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
        /// The stored key.
        public let keyPath: String
        /// The key this attribute had in the previous model version, for migrations.
        public let previousVersionKeyPath: String?
        let initialValue: () -> V
        let isDynamic: Bool
        let encode: (V) -> Data?
        let decode: (Data?) -> V?

        /// Declares a coded attribute with a fixed initial value and custom closures; `decode`
        /// is given `nil` when nothing is stored.
        public init(
            wrappedValue initialValue: @autoclosure @escaping () -> V, _ keyPath: KeyPathString,
            previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
            coder: (encode: (V) -> Data?, decode: (Data?) -> V)
        ) {
            let decode = coder.decode
            self.init(keyPath, previousVersionKeyPath: previousVersionKeyPath(), initialValue: initialValue, isDynamic: false, encode: coder.encode, decode: { decode($0) })
        }

        /// Declares a coded attribute with custom closures whose initial value is computed for
        /// every inserted object.
        public init(
            _ keyPath: KeyPathString, previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
            coder: (encode: (V) -> Data?, decode: (Data?) -> V), dynamicInitialValue: @escaping () -> V
        ) {
            let decode = coder.decode
            self.init(keyPath, previousVersionKeyPath: previousVersionKeyPath(), initialValue: dynamicInitialValue, isDynamic: true, encode: coder.encode, decode: { decode($0) })
        }

        /// Declares a coded attribute with a fixed initial value and a ``FieldCoderType``.
        public init<Coder: FieldCoderType>(
            wrappedValue initialValue: @autoclosure @escaping () -> V, _ keyPath: KeyPathString,
            previousVersionKeyPath: @autoclosure @escaping () -> String? = nil, coder fieldCoderType: Coder.Type
        ) where Coder.FieldStoredValue == V {
            self.init(keyPath, previousVersionKeyPath: previousVersionKeyPath(), initialValue: initialValue, isDynamic: false,
                      encode: { Coder.encodeToStoredData($0) }, decode: Coder.decodeFromStoredData)
        }

        /// Declares a coded attribute with a ``FieldCoderType`` whose initial value is computed
        /// for every inserted object.
        public init<Coder: FieldCoderType>(
            _ keyPath: KeyPathString, previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
            coder fieldCoderType: Coder.Type, dynamicInitialValue: @escaping () -> V
        ) where Coder.FieldStoredValue == V {
            self.init(keyPath, previousVersionKeyPath: previousVersionKeyPath(), initialValue: dynamicInitialValue, isDynamic: true,
                      encode: { Coder.encodeToStoredData($0) }, decode: Coder.decodeFromStoredData)
        }

        init(_ keyPath: String, previousVersionKeyPath: String?, initialValue: @escaping () -> V, isDynamic: Bool, encode: @escaping (V) -> Data?, decode: @escaping (Data?) -> V?) {
            self.keyPath = keyPath
            self.previousVersionKeyPath = previousVersionKeyPath
            self.initialValue = initialValue
            self.isDynamic = isDynamic
            self.encode = encode
            self.decode = decode
        }

        /// Unavailable: the value lives in the object's context.
        @available(*, unavailable)
        public var wrappedValue: V {
            get { initialValue() }
            set { _ = newValue }
        }

        /// The field itself.
        public var projectedValue: Self { self }

        /// Decodes and encodes the value through the object's context.
        public static subscript<O: CoreStoreObject>(
            _enclosingInstance instance: O,
            wrapped wrappedKeyPath: ReferenceWritableKeyPath<O, V>,
            storage storageKeyPath: ReferenceWritableKeyPath<O, Self>
        ) -> V {
            get {
                let field = instance[keyPath: storageKeyPath]
                guard let state = instance.cs_state else { return field.initialValue() }
                let data: Data?
                switch state.attributeValue(forKey: field.keyPath) {
                case .bytes(let d): data = d
                default: data = nil
                }
                if let value = field.decode(data) { return value }
                Log.assert(false, "The stored bytes of '\(state.entity.name).\(field.keyPath)' could not be decoded as \(V.self); using the initial value.")
                return field.initialValue()
            }
            set {
                let field = instance[keyPath: storageKeyPath]
                guard let state = instance.cs_writableState(forKey: field.keyPath) else { return }
                state.setAttributeValue(field.encode(newValue).map(Value.bytes) ?? .null, forKey: field.keyPath)
            }
        }

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

extension Field.Coded where V: FieldOptionalType {
    /// Declares an optional coded attribute (starting as `nil` unless given) whose
    /// ``FieldCoderType`` codes the wrapped type; `nil` is stored as nothing:
    /// `@Field.Coded("settings", coder: FieldCoders.Plist.self) var settings: Settings?`.
    public init<Coder: FieldCoderType>(
        wrappedValue initialValue: @autoclosure @escaping () -> V = nil, _ keyPath: KeyPathString,
        previousVersionKeyPath: @autoclosure @escaping () -> String? = nil, coder: Coder.Type
    ) where Coder.FieldStoredValue == V.Wrapped {
        self.init(keyPath, previousVersionKeyPath: previousVersionKeyPath(), initialValue: initialValue, isDynamic: false,
                  encode: { Coder.encodeToStoredData($0.cs_wrappedValue) },
                  decode: { data in data == nil ? V.cs_fromWrappedValue(nil) : Coder.decodeFromStoredData(data).map { V.cs_fromWrappedValue($0) } })
    }

    /// Declares an optional coded attribute whose initial value is computed for every inserted
    /// object.
    public init<Coder: FieldCoderType>(
        _ keyPath: KeyPathString, previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
        coder: Coder.Type, dynamicInitialValue: @escaping () -> V
    ) where Coder.FieldStoredValue == V.Wrapped {
        self.init(keyPath, previousVersionKeyPath: previousVersionKeyPath(), initialValue: dynamicInitialValue, isDynamic: true,
                  encode: { Coder.encodeToStoredData($0.cs_wrappedValue) },
                  decode: { data in data == nil ? V.cs_fromWrappedValue(nil) : Coder.decodeFromStoredData(data).map { V.cs_fromWrappedValue($0) } })
    }
}

/// An `Optional`, as the optional forms of ``Field/Coded`` see it.
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
