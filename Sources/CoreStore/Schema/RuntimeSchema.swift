import CoreStoreStorage

/// One entity as the core uses it at run time: its class, its storage description, and
/// constant-time lookups from keys to ordinals.
final class EntityMetadata: @unchecked Sendable {
    let name: String
    /// The bits of ``name``, for a quick check that a record's entity is this one.
    let nameBits: StringBits
    let type: CoreStoreObject.Type
    let entity: DynamicEntity
    let description: EntityDescription
    let attributeOrdinals: [String: Int]
    /// The bits of the attribute names by ordinal, for ``attributeOrdinal(_:)`` and the
    /// property getters (each object carries a copy of this reference).
    let attributeKeys: AttributeKeys
    let relationshipOrdinals: [String: Int]
    /// Initial value of each attribute, by ordinal; evaluated for each insert.
    /// For each attribute, the closure that makes its initial value for every inserted object
    /// (`dynamicInitialValue`), or `nil` for a fixed one (its `defaultValue`).
    let initialValues: [(() -> Value)?]
    /// The initial attribute values of an inserted object, before the dynamic ones are made.
    private let fixedInitialAttributes: [Value]
    /// The ordinals of the attributes with a dynamic initial value.
    private let dynamicInitialOrdinals: [Int]
    /// The inverse relationship's ordinal in the destination entity, by relationship ordinal.
    let inverseOrdinals: [Int?]
    let virtualKeys: Set<String>
    let canonicalDescription: String
    /// Named configurations that list this entity.
    let configurations: Set<String>
    /// For each key, the fields whose `affectedByKeyPaths` name it.
    let dependentKeys: [String: Set<String>]

    init(
        type: CoreStoreObject.Type, entity: DynamicEntity, description: EntityDescription,
        initialValues: [(() -> Value)?], inverseOrdinals: [Int?], virtualKeys: Set<String>,
        canonicalDescription: String, configurations: Set<String>, dependentKeys: [String: Set<String>] = [:]
    ) {
        self.dependentKeys = dependentKeys
        self.name = description.name
        self.nameBits = StringBits(description.name)
        self.type = type
        self.entity = entity
        self.description = description
        self.initialValues = initialValues
        self.fixedInitialAttributes = description.attributes.map(\.defaultValue)
        self.dynamicInitialOrdinals = initialValues.indices.filter { initialValues[$0] != nil }
        self.inverseOrdinals = inverseOrdinals
        self.virtualKeys = virtualKeys
        self.canonicalDescription = canonicalDescription
        self.configurations = configurations
        var a: [String: Int] = [:]
        for (i, attribute) in description.attributes.enumerated() { a[attribute.name] = i }
        var r: [String: Int] = [:]
        for (i, relationship) in description.relationships.enumerated() { r[relationship.name] = i }
        self.attributeOrdinals = a
        self.attributeKeys = AttributeKeys(names: description.attributes.count <= 32 ? description.attributes.map(\.name) : [])
        self.relationshipOrdinals = r
    }

    deinit {
        attributeKeys.deallocate()
    }

    /// `keys` and every field they affect, directly or through other fields
    /// (`affectedByKeyPaths`).
    func withDependentKeys(_ keys: Set<String>) -> Set<String> {
        guard !dependentKeys.isEmpty else { return keys }
        var result = keys
        var pending = Array(keys)
        while let key = pending.popLast() {
            for dependent in dependentKeys[key] ?? [] where result.insert(dependent).inserted { pending.append(dependent) }
        }
        return result
    }

    /// The ordinal of attribute `key`. A property getter passes the very string literal the
    /// schema was read from, so comparing the strings' bits finds it in a few instructions;
    /// any other spelling of the same text takes the dictionary.
    @inline(__always)
    func attributeOrdinal(_ key: String) -> Int? {
        attributeKeys.ordinal(of: key) ?? attributeOrdinals[key]
    }

    /// A new record's values: every attribute at its initial value, no relationships.
    ///
    /// The values are an array of the record's own, copied element by element: sharing
    /// ``fixedInitialAttributes`` made the object's first setter copy it through the standard
    /// library's unspecialized copy, which cost more (100,000 inserts: 77M instructions for the
    /// shared array and its copy, 64M for this).
    func initialRecord(id: RecordID) -> Record {
        var attributes: [Value] = []
        attributes.reserveCapacity(fixedInitialAttributes.count)
        for value in fixedInitialAttributes { attributes.append(value) }
        for ordinal in dynamicInitialOrdinals {
            if let make = initialValues[ordinal] { attributes[ordinal] = make() }
        }
        return Record(id: id, attributes: attributes, relationships: Array(filledWith: [], count: description.relationships.count))
    }
}

/// The validated form of a ``CoreStoreSchema``.
final class RuntimeSchema: @unchecked Sendable {
    let modelVersion: String
    let entities: [EntityMetadata]
    let entitiesByName: [String: EntityMetadata]
    let entitiesByType: [ObjectIdentifier: EntityMetadata]
    let versionLock: VersionLock
    let descriptions: [EntityDescription]

    init(modelVersion: String, entities: [EntityMetadata]) {
        self.modelVersion = modelVersion
        self.entities = entities
        var byName: [String: EntityMetadata] = [:]
        var byType: [ObjectIdentifier: EntityMetadata] = [:]
        var hashes: [String: [UInt64]] = [:]
        for entity in entities {
            byName[entity.name] = entity
            byType[ObjectIdentifier(entity.type)] = entity
            hashes[entity.name] = SHA256.words(entity.canonicalDescription)
        }
        self.entitiesByName = byName
        self.entitiesByType = byType
        self.versionLock = VersionLock(hashes)
        self.descriptions = entities.map(\.description)
    }

    /// The entity of a class, if the schema declares it.
    func entity(for type: CoreStoreObject.Type) -> EntityMetadata? {
        entitiesByType[ObjectIdentifier(type)]
    }

    /// The schema a store of `configuration` is opened with (`nil`: every entity).
    func storeSchema(configuration: String?) -> StoreSchema {
        let members = entities.filter { entity in configuration.map { entity.configurations.contains($0) } ?? true }
        var text = "model:\(modelVersion)"
        for entity in members.sorted(by: { $0.name < $1.name }) {
            text += "\n" + entity.canonicalDescription
            for index in entity.description.indexes { text += "\nindex:" + index.joined(separator: ",") }
            for unique in entity.description.uniqueConstraints { text += "\nunique:" + unique.joined(separator: ",") }
        }
        return StoreSchema(modelVersion: modelVersion, schemaHash: SHA256.hex(text), entities: members.map(\.description))
    }
}

/// The two machine words of a `String`. Equal bits mean equal strings (the same small string,
/// or the same storage); different bits say nothing, so a miss falls back to comparing text.
@usableFromInline
struct StringBits: Equatable {
    @usableFromInline let first: UInt64
    @usableFromInline let second: UInt64

    @inlinable @inline(__always)
    init(_ string: String) {
        (first, second) = unsafeBitCast(string, to: (UInt64, UInt64).self)
    }

    @inlinable @inline(__always)
    static func == (lhs: StringBits, rhs: StringBits) -> Bool {
        lhs.first == rhs.first && lhs.second == rhs.second
    }
}

/// An entity's attribute names as ``StringBits``, in one block of memory the entity owns:
/// their count, then the bits of each name by ordinal. Objects carry this one pointer, so a
/// property getter (inlined into the model's module) finds its ordinal without a call or a
/// reference count; the entity outlives its objects (they hold their context, which holds
/// the model).
@usableFromInline
struct AttributeKeys {
    @usableFromInline let storage: UnsafeRawPointer

    init(names: [String]) {
        let block = UnsafeMutableRawPointer.allocate(
            byteCount: MemoryLayout<Int>.stride + names.count * MemoryLayout<StringBits>.stride,
            alignment: max(MemoryLayout<Int>.alignment, MemoryLayout<StringBits>.alignment)
        )
        block.storeBytes(of: names.count, as: Int.self)
        let bits = (block + MemoryLayout<Int>.stride).bindMemory(to: StringBits.self, capacity: names.count)
        for (i, name) in names.enumerated() { (bits + i).initialize(to: StringBits(name)) }
        storage = UnsafeRawPointer(block)
    }

    /// The ordinal of the name whose bits `key` has, or `nil` (another spelling, or no such
    /// attribute).
    @inlinable @inline(__always)
    func ordinal(of key: String) -> Int? {
        ordinal(ofBits: StringBits(key))
    }

    /// The ordinal of the name with these bits, or `nil`: what a property getter asks with the
    /// bits its field keeps, so that it never copies (and retains) the key itself.
    @inlinable @inline(__always)
    func ordinal(ofBits bits: StringBits) -> Int? {
        let count = storage.load(as: Int.self)
        let names = (storage + MemoryLayout<Int>.stride).assumingMemoryBound(to: StringBits.self)
        var i = 0
        while i < count {
            if names[i] == bits { return i }
            i += 1
        }
        return nil
    }

    /// Frees the block (the entity's `deinit`).
    func deallocate() {
        UnsafeMutableRawPointer(mutating: storage).deallocate()
    }
}
