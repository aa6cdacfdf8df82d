import CoreStore
import CoreStoreStorage
import Foundation

/// What `corestore inspect` tells about a store; printed as text or encoded as JSON.
struct InspectReport: Encodable {
    struct File: Encodable {
        let name: String
        let bytes: Int64
    }

    struct Entity: Encodable {
        let description: EntityDescription
        /// Records of exactly this entity.
        let objects: Int
        /// Records of this entity and its sub-entities.
        let objectsWithSubentities: Int

        private enum CodingKeys: String, CodingKey {
            case name, parentName, isAbstract, attributes, relationships, indexes, uniqueConstraints, objects, objectsWithSubentities
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(description.name, forKey: .name)
            try container.encodeIfPresent(description.parentName, forKey: .parentName)
            try container.encode(description.isAbstract, forKey: .isAbstract)
            try container.encode(description.attributes, forKey: .attributes)
            try container.encode(description.relationships, forKey: .relationships)
            try container.encode(description.indexes, forKey: .indexes)
            try container.encode(description.uniqueConstraints, forKey: .uniqueConstraints)
            try container.encode(objects, forKey: .objects)
            try container.encode(objectsWithSubentities, forKey: .objectsWithSubentities)
        }
    }

    let path: String
    let backend: String
    let files: [File]
    let sizeBytes: Int64
    let durability: String
    let modelVersion: String
    let schemaHash: String
    let versionLock: String?
    /// Whether the store holds its schema; without it `entities` is empty.
    let schemaRecorded: Bool
    let entities: [Entity]
    /// The stored metadata other than the framework's own keys.
    let userInfo: [String: String]

    /// Reads everything from the open `store` in one snapshot.
    init(_ store: OpenedStore) throws {
        let files = StoreFiles(at: store.url, backend: store.backend)
        self.path = store.url.path
        self.backend = store.backend.rawValue
        self.files = files.sizes.map { File(name: $0.name, bytes: $0.bytes) }
        self.sizeBytes = files.totalBytes
        self.durability = store.backend.durabilityNote(at: store.url)
        self.modelVersion = store.metadata.modelVersion
        self.schemaHash = store.metadata.schemaHash
        self.versionLock = store.metadata.userInfo[StoredMetadata.versionLockKey]
        self.schemaRecorded = store.schema != nil
        self.userInfo = store.metadata.userInfo.filter { !$0.key.hasPrefix("corestore.") }
        if let schema = store.schema {
            self.entities = try store.read { reader in
                try schema.entities.map { entity in
                    Entity(
                        description: entity,
                        objects: try reader.count(FetchRequest(entity: entity.name, includesSubentities: false)),
                        objectsWithSubentities: try reader.count(FetchRequest(entity: entity.name))
                    )
                }
            }
        } else {
            self.entities = []
        }
    }

    /// The report for people.
    var text: String {
        var lines: [String] = []
        lines.append("Store:         \(path)")
        lines.append("Backend:       \(backend)")
        lines.append("Size:          \(sizeBytes.formatted) bytes in \(files.count) file\(files.count == 1 ? "" : "s") (\(files.map { "\($0.name) \($0.bytes.formatted)" }.joined(separator: ", ")))")
        lines.append("Durability:    \(durability)")
        lines.append("Model version: \(modelVersion)")
        lines.append("Schema hash:   \(schemaHash)")
        if !schemaRecorded {
            lines.append("Schema:        not recorded (written before stores kept their schema; adding the store to a DataStack once records it)")
        }
        for entity in entities {
            lines.append("")
            lines.append(Self.describe(entity))
        }
        if let versionLock {
            lines.append("")
            lines.append("Version lock:")
            lines.append(contentsOf: versionLock.split(separator: "\n").map { "  " + $0 })
        }
        if !userInfo.isEmpty {
            lines.append("")
            lines.append("Metadata:")
            for key in userInfo.keys.sorted() { lines.append("  \(key) = \(userInfo[key] ?? "")") }
        }
        return lines.joined(separator: "\n")
    }

    private static func describe(_ entity: Entity) -> String {
        let d = entity.description
        var head = "Entity \(d.name)"
        if let parent = d.parentName { head += " : \(parent)" }
        if d.isAbstract { head += " (abstract)" }
        head += " — \(entity.objects.formatted) object\(entity.objects == 1 ? "" : "s")"
        if entity.objectsWithSubentities != entity.objects {
            head += ", \(entity.objectsWithSubentities.formatted) with sub-entities"
        }
        var lines = [head]
        let width = (d.attributes.map(\.name.count) + d.relationships.map(\.name.count)).max() ?? 0
        func pad(_ name: String) -> String { name + String(repeating: " ", count: max(0, width - name.count)) }
        for attribute in d.attributes {
            var line = "  \(pad(attribute.name))  \(attribute.type.rawValue)\(attribute.isOptional ? "?" : "")"
            if !attribute.defaultValue.isNull { line += ", default \(attribute.defaultValue)" }
            if attribute.isIndexed { line += ", indexed" }
            if let old = attribute.renamingIdentifier { line += ", renamed from \(old)" }
            lines.append(line)
        }
        for relationship in d.relationships {
            let kind = switch relationship.kind {
            case .toOne: "to-one"
            case .toManyOrdered: "to-many, ordered"
            case .toManyUnordered: "to-many"
            }
            var line = "  \(pad(relationship.name))  → \(relationship.destinationEntity) (\(kind)"
            if let inverse = relationship.inverseName { line += ", inverse \(inverse)" }
            line += ", \(relationship.deleteRule.rawValue) on delete"
            if relationship.minCount > 0 || relationship.maxCount > 0 {
                line += ", \(relationship.minCount)...\(relationship.maxCount > 0 ? "\(relationship.maxCount)" : "")"
            }
            lines.append(line + ")")
        }
        for index in d.indexes { lines.append("  index (\(index.joined(separator: ", ")))") }
        for unique in d.uniqueConstraints { lines.append("  unique (\(unique.joined(separator: ", ")))") }
        return lines.joined(separator: "\n")
    }
}

extension BinaryInteger {
    /// The number with a comma every three digits, as people read sizes and counts.
    var formatted: String {
        let digits = String(self.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (self < 0 ? "-" : "") + out
    }
}
