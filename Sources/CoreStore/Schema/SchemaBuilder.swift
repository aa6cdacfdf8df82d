import CoreStoreStorage

/// Reads the fields of each entity class by reflection on a meta instance and validates the
/// result into a ``RuntimeSchema``.
struct SchemaBuilder {
    let schema: CoreStoreSchema

    private struct Reflected {
        let entity: DynamicEntity
        let meta: CoreStoreObject
        let parent: DynamicEntity?
        let fields: [FieldKind]
        let ownFieldNames: Set<String>
        /// For each key, the fields declared `affectedByKeyPaths` it.
        let dependentKeys: [String: Set<String>]
    }

    func build() throws(CoreStoreError) -> RuntimeSchema {
        let declared = schema.allEntities
        var byType: [ObjectIdentifier: DynamicEntity] = [:]
        var names = Set<String>()
        for entity in declared {
            if entity.entityName.isEmpty || entity.entityName.contains(where: { $0 == "." || $0 == ":" || $0 == "\n" }) {
                throw .invalidSchema(message: "'\(entity.entityName)' is not a valid entity name")
            }
            guard names.insert(entity.entityName).inserted else {
                throw .invalidSchema(message: "the entity name '\(entity.entityName)' is declared twice")
            }
            guard byType.updateValue(entity, forKey: ObjectIdentifier(entity.type)) == nil else {
                throw .invalidSchema(message: "the class \(entity.type) is declared as two entities")
            }
        }

        // Reflect every entity: fields in inheritance order, parent entity from the class chain.
        var reflected: [String: Reflected] = [:]
        for entity in declared {
            let meta = entity.type.init(asMeta: ())
            var chain: [Mirror] = []
            var mirror: Mirror? = Mirror(reflecting: meta)
            while let m = mirror { chain.insert(m, at: 0); mirror = m.superclassMirror }
            var parent: DynamicEntity?
            for m in chain.dropLast() {
                if let type = m.subjectType as? CoreStoreObject.Type, let p = byType[ObjectIdentifier(type)] { parent = p }
            }
            var fields: [FieldKind] = []
            var dependents: [String: Set<String>] = [:]
            var own = Set<String>()
            var seen = Set<String>()
            var isOwn = parent == nil
            for m in chain {
                for child in m.children {
                    guard let field = child.value as? FieldDescribing else { continue }
                    let kind = field.cs_fieldKind
                    guard seen.insert(kind.name).inserted else {
                        throw .invalidSchema(message: "'\(entity.entityName)' declares the key '\(kind.name)' twice")
                    }
                    if kind.name.isEmpty || kind.name.contains(where: { $0 == "." || $0 == ":" || $0 == "\n" }) {
                        throw .invalidSchema(message: "'\(kind.name)' is not a valid key in '\(entity.entityName)'")
                    }
                    fields.append(kind)
                    for key in field.cs_affectedByKeyPaths { dependents[key, default: []].insert(kind.name) }
                    if isOwn { own.insert(kind.name) }
                }
                if let parent, let type = m.subjectType as? CoreStoreObject.Type, ObjectIdentifier(type) == ObjectIdentifier(parent.type) {
                    isOwn = true
                }
            }
            reflected[entity.entityName] = Reflected(entity: entity, meta: meta, parent: parent, fields: fields, ownFieldNames: own, dependentKeys: dependents)
        }

        // Inverses: declared on one side, mirrored to the other.
        var inverses: [String: String] = [:]   // "Entity.relationship" -> inverse name
        for entity in declared {
            guard let r = reflected[entity.entityName] else { continue }
            for case .relationship(let rel) in r.fields where r.ownFieldNames.contains(rel.name) {
                guard let destination = byType[ObjectIdentifier(rel.destination)] else {
                    throw .invalidSchema(message: "'\(entity.entityName).\(rel.name)' points to \(rel.destination), which is not an entity of model version '\(schema.modelVersion)'")
                }
                guard let inverseKeyPath = rel.inverse else { continue }
                let destinationMeta = reflected[destination.entityName]?.meta ?? destination.type.init(asMeta: ())
                guard let inverseField = destinationMeta[keyPath: inverseKeyPath] as? FieldDescribing,
                      case .relationship(let inverse) = inverseField.cs_fieldKind else {
                    throw .invalidSchema(message: "the inverse of '\(entity.entityName).\(rel.name)' is not a relationship")
                }
                guard byType[ObjectIdentifier(inverse.destination)].map({ isKind(entity, of: $0, byType) }) == true else {
                    throw .invalidSchema(message: "the inverse '\(destination.entityName).\(inverse.name)' of '\(entity.entityName).\(rel.name)' does not point back to '\(entity.entityName)'")
                }
                for (key, value) in [("\(entity.entityName).\(rel.name)", inverse.name), ("\(destination.entityName).\(inverse.name)", rel.name)] {
                    if let existing = inverses[key], existing != value {
                        throw .invalidSchema(message: "'\(key)' is declared with two inverses, '\(existing)' and '\(value)'")
                    }
                    inverses[key] = value
                }
            }
        }

        // Parents before children.
        func depth(_ name: String) -> Int {
            var d = 0, current = reflected[name]?.parent
            while let p = current { d += 1; current = reflected[p.entityName]?.parent }
            return d
        }
        let ordered = declared.enumerated().sorted { a, b in
            let da = depth(a.element.entityName), db = depth(b.element.entityName)
            return da != db ? da < db : a.offset < b.offset
        }.map(\.element)

        var configurationsByEntity: [String: Set<String>] = [:]
        for (configuration, entities) in schema.configurations {
            for entity in entities { configurationsByEntity[entity.entityName, default: []].insert(configuration) }
        }

        var descriptions: [String: EntityDescription] = [:]
        var metadata: [EntityMetadata] = []
        var pendingInverses: [(String, [(String, String?)])] = []
        for entity in ordered {
            guard let r = reflected[entity.entityName] else { continue }
            var attributes: [AttributeDescription] = []
            var initialValues: [(() -> Value)?] = []
            var relationships: [RelationshipDescription] = []
            var virtualKeys = Set<String>()
            var lines = ["entity:\(entity.entityName)", "parent:\(r.parent?.entityName ?? "")", "abstract:\(entity.isAbstract ? 1 : 0)"]
            var ownAttributeLines: [String] = []
            var ownRelationshipLines: [String] = []
            for field in r.fields {
                switch field {
                case .attribute(let a):
                    attributes.append(AttributeDescription(
                        name: a.name, type: a.type, isOptional: a.isOptional,
                        defaultValue: a.isDynamic ? .null : a.initialValue(), renamingIdentifier: a.renamingIdentifier
                    ))
                    // A fixed initial value is the attribute's default, read once just above.
                    initialValues.append(a.isDynamic ? a.initialValue : nil)
                    if r.ownFieldNames.contains(a.name) {
                        ownAttributeLines.append("attribute:\(a.name):\(a.type.rawValue):\(a.isOptional ? "optional" : "required")")
                    }
                case .relationship(let rel):
                    let destination = byType[ObjectIdentifier(rel.destination)]?.entityName ?? "\(rel.destination)"
                    let inverse = inverseName(entity.entityName, rel.name, reflected, inverses)
                    relationships.append(RelationshipDescription(
                        name: rel.name, kind: rel.kind, destinationEntity: destination, inverseName: inverse,
                        deleteRule: rel.deleteRule, minCount: rel.minCount, maxCount: rel.maxCount,
                        renamingIdentifier: rel.renamingIdentifier
                    ))
                    if r.ownFieldNames.contains(rel.name) {
                        ownRelationshipLines.append("relationship:\(rel.name):\(rel.kind.rawValue):\(destination):\(inverse ?? ""):\(rel.deleteRule.rawValue)")
                    }
                case .virtual(let name):
                    virtualKeys.insert(name)
                }
            }
            lines += ownAttributeLines.sorted() + ownRelationshipLines.sorted()

            let resolve = { (keyPaths: [[AnyKeyPath]], what: String) throws(CoreStoreError) -> [[String]] in
                var result: [[String]] = []
                for group in keyPaths {
                    var names: [String] = []
                    for keyPath in group {
                        guard let field = r.meta[keyPath: keyPath] as? FieldDescribing, case .attribute(let a) = field.cs_fieldKind else {
                            throw .invalidSchema(message: "every \(what) of '\(entity.entityName)' must list stored attributes (\\.$field)")
                        }
                        names.append(a.name)
                    }
                    if !names.isEmpty { result.append(names) }
                }
                return result
            }
            let indexes = try resolve(entity.indexKeyPaths, "index")
            let unique = try resolve(entity.uniqueKeyPaths, "uniqueness constraint")
            for index in indexes where index.count == 1 {
                if let i = attributes.firstIndex(where: { $0.name == index[0] }) { attributes[i].isIndexed = true }
            }
            for constraint in unique where constraint.count == 1 {
                if let i = attributes.firstIndex(where: { $0.name == constraint[0] }) { attributes[i].isIndexed = true }
            }
            let description = EntityDescription(
                name: entity.entityName, parentName: r.parent?.entityName, isAbstract: entity.isAbstract,
                attributes: attributes, relationships: relationships, indexes: indexes, uniqueConstraints: unique
            )
            descriptions[entity.entityName] = description
            pendingInverses.append((entity.entityName, relationships.map { ($0.destinationEntity, $0.inverseName) }))
            metadata.append(EntityMetadata(
                type: entity.type, entity: entity, description: description, initialValues: initialValues,
                inverseOrdinals: [], virtualKeys: virtualKeys, canonicalDescription: lines.joined(separator: "\n"),
                configurations: configurationsByEntity[entity.entityName] ?? [], dependentKeys: r.dependentKeys
            ))
        }

        // Second pass: inverse ordinals, now that every entity's relationships are known.
        var final: [EntityMetadata] = []
        for (entity, (_, pairs)) in zip(metadata, pendingInverses) {
            let ordinals = pairs.map { destination, inverse in
                inverse.flatMap { name in descriptions[destination]?.relationships.firstIndex { $0.name == name } }
            }
            final.append(EntityMetadata(
                type: entity.type, entity: entity.entity, description: entity.description, initialValues: entity.initialValues,
                inverseOrdinals: ordinals, virtualKeys: entity.virtualKeys, canonicalDescription: entity.canonicalDescription,
                configurations: entity.configurations, dependentKeys: entity.dependentKeys
            ))
        }
        return RuntimeSchema(modelVersion: schema.modelVersion, entities: final)
    }

    /// The inverse of `entity.relationship`, looking up the entity's ancestors too.
    private func inverseName(_ entity: String, _ relationship: String, _ reflected: [String: Reflected], _ inverses: [String: String]) -> String? {
        var current: String? = entity
        while let name = current {
            if let inverse = inverses["\(name).\(relationship)"] { return inverse }
            current = reflected[name]?.parent?.entityName
        }
        return nil
    }

    private func isKind(_ entity: DynamicEntity, of ancestor: DynamicEntity, _ byType: [ObjectIdentifier: DynamicEntity]) -> Bool {
        var type: AnyClass? = entity.type
        while let t = type {
            if ObjectIdentifier(t) == ObjectIdentifier(ancestor.type) { return true }
            type = _getSuperclass(t)
        }
        return false
    }
}
