import Foundation
import CoreStoreStorage

extension Field {
    /// An attribute of any type, stored as bytes produced by a coder.
    ///
    /// ```swift
    /// @Field.Coded("tags", coder: FieldCoders.Json.self) var tags: [String] = []
    /// @Field.Coded("color", coder: (encode: { $0.hexData }, decode: { Color(hexData: $0) }))
    /// var color: Color = .black
    /// ```
    /// A value the decoder cannot read yields the initial value (and an assertion in the log).
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

        /// Declares a coded attribute with a fixed initial value and custom closures.
        public init(
            wrappedValue initialValue: @autoclosure @escaping () -> V, _ keyPath: String,
            coder: (encode: (V) -> Data?, decode: (Data?) -> V?),
            previousVersionKeyPath: String? = nil
        ) {
            self.keyPath = keyPath
            self.previousVersionKeyPath = previousVersionKeyPath
            self.initialValue = initialValue
            self.isDynamic = false
            self.encode = coder.encode
            self.decode = coder.decode
        }

        /// Declares a coded attribute with a fixed initial value and a ``FieldCoder``.
        public init<Coder: FieldCoder>(
            wrappedValue initialValue: @autoclosure @escaping () -> V, _ keyPath: String,
            coder: Coder.Type, previousVersionKeyPath: String? = nil
        ) where Coder.FieldStoredValue == V {
            self.init(wrappedValue: initialValue(), keyPath, coder: (encode: Coder.cs_toFieldStoredData, decode: Coder.cs_fromFieldStoredData), previousVersionKeyPath: previousVersionKeyPath)
        }

        /// Declares a coded attribute whose initial value is computed for every inserted object.
        public init<Coder: FieldCoder>(
            _ keyPath: String, coder: Coder.Type, dynamicInitialValue: @escaping () -> V,
            previousVersionKeyPath: String? = nil
        ) where Coder.FieldStoredValue == V {
            self.keyPath = keyPath
            self.previousVersionKeyPath = previousVersionKeyPath
            self.initialValue = dynamicInitialValue
            self.isDynamic = true
            self.encode = Coder.cs_toFieldStoredData
            self.decode = Coder.cs_fromFieldStoredData
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

/// Turns values of one type into stored bytes and back, for ``Field/Coded``.
public protocol FieldCoder {
    /// The type being coded.
    associatedtype FieldStoredValue
    /// Encodes a value; `nil` stores `nil`.
    static func cs_toFieldStoredData(_ value: FieldStoredValue) -> Data?
    /// Decodes stored bytes; `nil` means the bytes cannot be read.
    static func cs_fromFieldStoredData(_ data: Data?) -> FieldStoredValue?
}

/// Ready-made ``FieldCoder``s.
public enum FieldCoders {
    /// Codes any `Codable` value as JSON (keys sorted, so equal values store equal bytes).
    public enum Json<V: Codable>: FieldCoder {
        public typealias FieldStoredValue = V
        public static func cs_toFieldStoredData(_ value: V) -> Data? {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return try? encoder.encode(value)
        }
        public static func cs_fromFieldStoredData(_ data: Data?) -> V? {
            guard let data else { return nil }
            return try? JSONDecoder().decode(V.self, from: data)
        }
    }
}

extension Field.Coded where V: Codable {
    /// Declares a JSON-coded attribute: `@Field.Coded("tags", coder: FieldCoders.Json.self)`.
    public init(
        wrappedValue initialValue: @autoclosure @escaping () -> V, _ keyPath: String,
        coder: FieldCoders.Json<V>.Type, previousVersionKeyPath: String? = nil
    ) {
        self.keyPath = keyPath
        self.previousVersionKeyPath = previousVersionKeyPath
        self.initialValue = initialValue
        self.isDynamic = false
        self.encode = { FieldCoders.Json<V>.cs_toFieldStoredData($0) }
        self.decode = { FieldCoders.Json<V>.cs_fromFieldStoredData($0) }
    }
}
