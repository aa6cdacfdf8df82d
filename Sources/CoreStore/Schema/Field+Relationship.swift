import CoreStoreStorage

extension FieldDefinition {
    /// The description of a relationship to other objects: what `$name` is, and what
    /// `\Person.$name` names in clauses. Declared with the property wrapper
    /// ``FieldContainer/Relationship``.
    public struct Relationship<V: FieldRelationshipType>: FieldDescribing {
        /// The stored key.
        public let keyPath: String
        /// What deleting the owner does to the destinations.
        public let deleteRule: DeleteRule
        /// The fewest destinations allowed at commit (to-many only; 0: no minimum).
        public let minCount: Int
        /// The most destinations allowed at commit (to-many only; 0: no maximum).
        public let maxCount: Int
        /// The key this relationship had in the previous model version, for migrations.
        public let previousVersionKeyPath: String?
        let inverse: AnyKeyPath?
        /// The keys whose changes observers also report as changes of this relationship.
        let affectedByKeyPaths: () -> Set<String>

        init(
            _ keyPath: KeyPathString, minCount: Int = 0, maxCount: Int = 0, deleteRule: DeleteRule = .nullify,
            versionHashModifier: @autoclosure @escaping () -> String? = nil,
            previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
            affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = []
        ) {
            self.init(keyPath, inverse: nil as AnyKeyPath?, deleteRule: deleteRule, minCount: minCount, maxCount: maxCount,
                      previousVersionKeyPath: previousVersionKeyPath(), affectedByKeyPaths: affectedByKeyPaths)
        }

        init<W>(
            _ keyPath: KeyPathString, minCount: Int = 0, maxCount: Int = 0,
            inverse: KeyPath<V.DestinationObjectType, FieldDefinition.Relationship<W>>, deleteRule: DeleteRule = .nullify,
            versionHashModifier: @autoclosure @escaping () -> String? = nil,
            previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
            affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = []
        ) {
            self.init(keyPath, inverse: inverse as AnyKeyPath, deleteRule: deleteRule, minCount: minCount, maxCount: maxCount,
                      previousVersionKeyPath: previousVersionKeyPath(), affectedByKeyPaths: affectedByKeyPaths)
        }

        private init(
            _ keyPath: String, inverse: AnyKeyPath?, deleteRule: DeleteRule, minCount: Int, maxCount: Int,
            previousVersionKeyPath: String?, affectedByKeyPaths: @escaping () -> Set<String>
        ) {
            self.keyPath = keyPath
            self.deleteRule = deleteRule
            self.minCount = minCount
            self.maxCount = maxCount
            self.previousVersionKeyPath = previousVersionKeyPath
            self.inverse = inverse
            self.affectedByKeyPaths = affectedByKeyPaths
        }

        var cs_affectedByKeyPaths: Set<String> { affectedByKeyPaths() }

        var cs_fieldKind: FieldKind {
            .relationship(RelationshipField(
                name: keyPath, kind: V.cs_relationshipKind, destination: V.DestinationObjectType.self,
                inverse: inverse, deleteRule: deleteRule, minCount: minCount, maxCount: maxCount,
                renamingIdentifier: previousVersionKeyPath
            ))
        }
    }
}

extension FieldContainer {
    /// The property wrapper of a relationship to other objects: `T?` (to-one), `[T]` (ordered to-many) or `Set<T>`
    /// (unordered to-many).
    ///
    /// ```swift
    /// final class Person: CoreStoreObject {
    ///     @Field.Relationship("pets", inverse: \Dog.$master, deleteRule: .cascade)
    ///     var pets: Set<Dog>
    /// }
    /// final class Dog: CoreStoreObject {
    ///     @Field.Relationship("master") var master: Person?
    /// }
    /// ```
    /// Declare `inverse:` on one side only; the other side learns it from the schema. The inverse
    /// side is kept in sync on every change: setting `dog.master = person` inserts the dog into
    /// `person.pets` and removes it from its previous master's.
    @propertyWrapper
    public struct Relationship<V: FieldRelationshipType>: FieldDescribing {
        /// The field's description: what `$name` is, and what `\Person.$name` names.
        public let projectedValue: FieldDefinition.Relationship<V>

        /// Declares a relationship without naming its inverse here.
        ///
        /// `versionHashModifier` is accepted for source compatibility and has no effect;
        /// `affectedByKeyPaths` names the keys whose changes observers also report as changes
        /// of this relationship.
        public init(
            _ keyPath: KeyPathString, minCount: Int = 0, maxCount: Int = 0, deleteRule: DeleteRule = .nullify,
            versionHashModifier: @autoclosure @escaping () -> String? = nil,
            previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
            affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = []
        ) {
            self.projectedValue = FieldDefinition.Relationship<V>(keyPath, minCount: minCount, maxCount: maxCount, deleteRule: deleteRule, versionHashModifier: versionHashModifier(), previousVersionKeyPath: previousVersionKeyPath(), affectedByKeyPaths: affectedByKeyPaths())
        }

        /// Declares a relationship and its inverse on the destination type.
        public init<W>(
            _ keyPath: KeyPathString, minCount: Int = 0, maxCount: Int = 0,
            inverse: KeyPath<V.DestinationObjectType, FieldDefinition.Relationship<W>>, deleteRule: DeleteRule = .nullify,
            versionHashModifier: @autoclosure @escaping () -> String? = nil,
            previousVersionKeyPath: @autoclosure @escaping () -> String? = nil,
            affectedByKeyPaths: @autoclosure @escaping () -> Set<KeyPathString> = []
        ) {
            self.projectedValue = FieldDefinition.Relationship<V>(keyPath, minCount: minCount, maxCount: maxCount, inverse: inverse, deleteRule: deleteRule, versionHashModifier: versionHashModifier(), previousVersionKeyPath: previousVersionKeyPath(), affectedByKeyPaths: affectedByKeyPaths())
        }

        /// Unavailable: the destinations live in the object's context.
        @available(*, unavailable)
        public var wrappedValue: V {
            get { V.cs_fromObjects([]) }
            set { _ = newValue }
        }

        /// Reads and writes the destinations through the object's context.
        public static subscript(
            _enclosingInstance instance: O,
            wrapped wrappedKeyPath: ReferenceWritableKeyPath<O, V>,
            storage storageKeyPath: ReferenceWritableKeyPath<O, Self>
        ) -> V {
            get {
                let field = instance[keyPath: storageKeyPath].projectedValue
                guard let state = instance.cs_state else { return V.cs_fromObjects([]) }
                let objects = state.relationshipObjects(forKey: field.keyPath)
                return V.cs_fromObjects(objects.compactMap { $0 as? V.DestinationObjectType })
            }
            set {
                let field = instance[keyPath: storageKeyPath].projectedValue
                guard let state = instance.cs_writableState(forKey: field.keyPath) else { return }
                state.setRelationshipObjects(newValue.cs_toObjects(), forKey: field.keyPath)
            }
        }

        var cs_fieldKind: FieldKind { projectedValue.cs_fieldKind }
        var cs_affectedByKeyPaths: Set<String> { projectedValue.cs_affectedByKeyPaths }
    }
}

