extension Field {
    /// A computed property that is never stored: its value comes from a getter, and setting it
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
        /// The key naming this property.
        public let keyPath: String
        let getter: (CoreStoreObject) -> V
        let setter: ((CoreStoreObject, V) -> Void)?
        let makeMeta: () -> CoreStoreObject

        /// Declares a virtual property computed by `customGetter`; when `customSetter` is given,
        /// assigning the property runs it (typically to set stored fields).
        public init<O: CoreStoreObject>(
            _ keyPath: String,
            customGetter: @escaping (O) -> V,
            customSetter: ((O, V) -> Void)? = nil
        ) {
            self.keyPath = keyPath
            self.getter = { object in customGetter((object as? O) ?? O(asMeta: ())) }
            self.setter = customSetter.map { set in { object, value in if let o = object as? O { set(o, value) } } }
            self.makeMeta = { O(asMeta: ()) }
        }

        /// Unavailable: the value is computed through the enclosing instance.
        @available(*, unavailable)
        public var wrappedValue: V {
            get { getter(makeMeta()) }
            set { _ = newValue }
        }

        /// The field itself.
        public var projectedValue: Self { self }

        /// Runs the getter or the setter on the enclosing instance.
        public static subscript<O: CoreStoreObject>(
            _enclosingInstance instance: O,
            wrapped wrappedKeyPath: ReferenceWritableKeyPath<O, V>,
            storage storageKeyPath: ReferenceWritableKeyPath<O, Self>
        ) -> V {
            get {
                instance[keyPath: storageKeyPath].getter(instance)
            }
            set {
                let field = instance[keyPath: storageKeyPath]
                guard let setter = field.setter else {
                    Log.assert(false, "The virtual property '\(field.keyPath)' has no custom setter; the value was ignored.")
                    return
                }
                setter(instance, newValue)
            }
        }

        var cs_fieldKind: FieldKind { .virtual(name: keyPath) }
    }
}
