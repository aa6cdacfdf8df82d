import Foundation

// A store's schema is written into its metadata as JSON (see ``StoredMetadata/recordedSchema()``),
// so tools can read a store without the application's model. The JSON names every field; a
// value is an object with its case and its payload (`{"int": 5}`), with bytes in Base64, dates
// as seconds since 2001-01-01, decimals as text and non-finite doubles as "nan", "inf", "-inf".

extension DeleteRule: Codable {}
extension RelationshipKind: Codable {}
extension AttributeType: Codable {}

extension Value: Codable {
    private enum Case: String, CodingKey {
        case null, bool, int, double, decimal, string, bytes, date, uuid
    }

    /// Writes the value as a one-key object naming its case.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Case.self)
        switch self {
        case .null: try container.encodeNil(forKey: .null)
        case .bool(let b): try container.encode(b, forKey: .bool)
        case .int(let i): try container.encode(i, forKey: .int)
        case .double(let d):
            if d.isFinite {
                try container.encode(d, forKey: .double)
            } else {
                try container.encode(d.isNaN ? "nan" : d > 0 ? "inf" : "-inf", forKey: .double)
            }
        case .decimal(let d): try container.encode("\(d)", forKey: .decimal)
        case .string(let s): try container.encode(s, forKey: .string)
        case .bytes(let b): try container.encode(b.base64EncodedString(), forKey: .bytes)
        case .date(let d): try container.encode(d.timeIntervalSinceReferenceDate, forKey: .date)
        case .uuid(let u): try container.encode(u.uuidString, forKey: .uuid)
        }
    }

    /// Reads a value written by ``encode(to:)``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Case.self)
        guard container.allKeys.count == 1, let key = container.allKeys.first else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a value has exactly one case"))
        }
        func invalid(_ what: String) -> DecodingError {
            .dataCorruptedError(forKey: key, in: container, debugDescription: "not \(what)")
        }
        switch key {
        case .null: self = .null
        case .bool: self = .bool(try container.decode(Bool.self, forKey: key))
        case .int: self = .int(try container.decode(Int64.self, forKey: key))
        case .double:
            if let d = try? container.decode(Double.self, forKey: key) {
                self = .double(d)
            } else {
                switch try container.decode(String.self, forKey: key) {
                case "nan": self = .double(.nan)
                case "inf": self = .double(.infinity)
                case "-inf": self = .double(-.infinity)
                default: throw invalid("a double")
                }
            }
        case .decimal:
            guard let d = Decimal(string: try container.decode(String.self, forKey: key), locale: Locale(identifier: "en_US_POSIX")) else { throw invalid("a decimal") }
            self = .decimal(d)
        case .string: self = .string(try container.decode(String.self, forKey: key))
        case .bytes:
            guard let data = Data(base64Encoded: try container.decode(String.self, forKey: key)) else { throw invalid("Base64") }
            self = .bytes(data)
        case .date: self = .date(Date(timeIntervalSinceReferenceDate: try container.decode(Double.self, forKey: key)))
        case .uuid:
            guard let uuid = UUID(uuidString: try container.decode(String.self, forKey: key)) else { throw invalid("a UUID") }
            self = .uuid(uuid)
        }
    }
}

extension AttributeDescription: Codable {
    private enum CodingKeys: String, CodingKey {
        case name, type, isOptional, defaultValue, isIndexed, renamingIdentifier
    }

    /// Writes every field.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(type, forKey: .type)
        try container.encode(isOptional, forKey: .isOptional)
        try container.encode(defaultValue, forKey: .defaultValue)
        try container.encode(isIndexed, forKey: .isIndexed)
        try container.encodeIfPresent(renamingIdentifier, forKey: .renamingIdentifier)
    }

    /// Reads what ``encode(to:)`` wrote.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try container.decode(String.self, forKey: .name),
            type: try container.decode(AttributeType.self, forKey: .type),
            isOptional: try container.decode(Bool.self, forKey: .isOptional),
            defaultValue: try container.decode(Value.self, forKey: .defaultValue),
            isIndexed: try container.decode(Bool.self, forKey: .isIndexed),
            renamingIdentifier: try container.decodeIfPresent(String.self, forKey: .renamingIdentifier)
        )
    }
}

extension RelationshipDescription: Codable {
    private enum CodingKeys: String, CodingKey {
        case name, kind, destinationEntity, inverseName, deleteRule, minCount, maxCount, renamingIdentifier
    }

    /// Writes every field.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(kind, forKey: .kind)
        try container.encode(destinationEntity, forKey: .destinationEntity)
        try container.encodeIfPresent(inverseName, forKey: .inverseName)
        try container.encode(deleteRule, forKey: .deleteRule)
        try container.encode(minCount, forKey: .minCount)
        try container.encode(maxCount, forKey: .maxCount)
        try container.encodeIfPresent(renamingIdentifier, forKey: .renamingIdentifier)
    }

    /// Reads what ``encode(to:)`` wrote.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try container.decode(String.self, forKey: .name),
            kind: try container.decode(RelationshipKind.self, forKey: .kind),
            destinationEntity: try container.decode(String.self, forKey: .destinationEntity),
            inverseName: try container.decodeIfPresent(String.self, forKey: .inverseName),
            deleteRule: try container.decode(DeleteRule.self, forKey: .deleteRule),
            minCount: try container.decode(Int.self, forKey: .minCount),
            maxCount: try container.decode(Int.self, forKey: .maxCount),
            renamingIdentifier: try container.decodeIfPresent(String.self, forKey: .renamingIdentifier)
        )
    }
}

extension EntityDescription: Codable {
    private enum CodingKeys: String, CodingKey {
        case name, parentName, isAbstract, attributes, relationships, indexes, uniqueConstraints
    }

    /// Writes every field.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(parentName, forKey: .parentName)
        try container.encode(isAbstract, forKey: .isAbstract)
        try container.encode(attributes, forKey: .attributes)
        try container.encode(relationships, forKey: .relationships)
        try container.encode(indexes, forKey: .indexes)
        try container.encode(uniqueConstraints, forKey: .uniqueConstraints)
    }

    /// Reads what ``encode(to:)`` wrote.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try container.decode(String.self, forKey: .name),
            parentName: try container.decodeIfPresent(String.self, forKey: .parentName),
            isAbstract: try container.decode(Bool.self, forKey: .isAbstract),
            attributes: try container.decode([AttributeDescription].self, forKey: .attributes),
            relationships: try container.decode([RelationshipDescription].self, forKey: .relationships),
            indexes: try container.decode([[String]].self, forKey: .indexes),
            uniqueConstraints: try container.decode([[String]].self, forKey: .uniqueConstraints)
        )
    }
}

extension StoreSchema: Codable {
    private enum CodingKeys: String, CodingKey {
        case modelVersion, schemaHash, entities
    }

    /// Writes the version, the hash and the entities (parents before children).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(modelVersion, forKey: .modelVersion)
        try container.encode(schemaHash, forKey: .schemaHash)
        try container.encode(entities, forKey: .entities)
    }

    /// Reads what ``encode(to:)`` wrote; throws when an entity's parent is missing or comes
    /// after it, or a relationship points to an entity the schema lacks.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let entities = try container.decode([EntityDescription].self, forKey: .entities)
        var seen: Set<String> = []
        for entity in entities {
            if let parent = entity.parentName, !seen.contains(parent) {
                throw DecodingError.dataCorruptedError(forKey: .entities, in: container, debugDescription: "'\(entity.name)' comes before its parent '\(parent)'")
            }
            guard seen.insert(entity.name).inserted else {
                throw DecodingError.dataCorruptedError(forKey: .entities, in: container, debugDescription: "'\(entity.name)' is listed twice")
            }
        }
        for entity in entities {
            for relationship in entity.relationships where !seen.contains(relationship.destinationEntity) {
                throw DecodingError.dataCorruptedError(forKey: .entities, in: container, debugDescription: "'\(entity.name).\(relationship.name)' points to '\(relationship.destinationEntity)', which the schema lacks")
            }
        }
        self.init(
            modelVersion: try container.decode(String.self, forKey: .modelVersion),
            schemaHash: try container.decode(String.self, forKey: .schemaHash),
            entities: entities
        )
    }
}
