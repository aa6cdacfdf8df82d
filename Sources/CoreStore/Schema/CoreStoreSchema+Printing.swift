import CoreStoreStorage
import Foundation

extension CoreStoreSchema {
    /// Swift source that declares this model version: one `CoreStoreObject` class per entity
    /// with its stored fields and relationships, then the `CoreStoreSchema` with its entities,
    /// indexes, unique constraints and version lock. A starting point for a new model version
    /// (copy it into a `V2` namespace and edit), or a readable account of what a model stores.
    ///
    /// What the stored schema cannot say is written as comments for you to complete: the
    /// closures of dynamic initial values and virtual fields, and the Swift type of coded
    /// fields (printed as the `Data` they are stored as).
    public func printCoreStoreSchema() -> String {
        let runtime: RuntimeSchema
        do {
            runtime = try self.runtime()
        } catch {
            return "// Model version \"\(modelVersion)\" is invalid: \(error)\n"
        }
        let className = Dictionary(uniqueKeysWithValues: runtime.entities.map { ($0.name, String(describing: $0.type)) })
        let parents = Set(runtime.entities.compactMap(\.description.parentName))
        var out = ""
        for entity in runtime.entities {
            out += SchemaSourcePrinter.classDeclaration(entity, runtime: runtime, className: className, isFinal: !parents.contains(entity.name))
            out += "\n"
        }
        out += SchemaSourcePrinter.schemaDeclaration(self, runtime: runtime, className: className)
        return out
    }
}

/// The pieces of ``CoreStoreSchema/printCoreStoreSchema()``.
enum SchemaSourcePrinter {
    static func classDeclaration(_ entity: EntityMetadata, runtime: RuntimeSchema, className: [String: String], isFinal: Bool) -> String {
        let description = entity.description
        let parent = description.parentName.flatMap { runtime.entitiesByName[$0] }?.description
        let inheritedAttributes = Set(parent?.attributes.map(\.name) ?? [])
        let inheritedRelationships = Set(parent?.relationships.map(\.name) ?? [])
        let superclass = description.parentName.flatMap { className[$0] } ?? "CoreStoreObject"
        var lines = ["\(isFinal ? "final " : "")class \(className[entity.name] ?? entity.name): \(superclass) {"]
        for (ordinal, attribute) in description.attributes.enumerated() where !inheritedAttributes.contains(attribute.name) {
            lines += attributeLines(attribute, isDynamic: entity.initialValues[ordinal] != nil)
        }
        for relationship in description.relationships where !inheritedRelationships.contains(relationship.name) {
            lines.append("    " + relationshipDeclaration(relationship, owner: entity.name, className: className))
        }
        for key in entity.virtualKeys.sorted() {
            lines.append("    // \"\(key)\" is a virtual field (not stored): declare it with its customGetter.")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    static func attributeLines(_ attribute: AttributeDescription, isDynamic: Bool) -> [String] {
        let type = swiftType(attribute.type)
        let previous = attribute.renamingIdentifier.map { ", previousVersionKeyPath: \(literal($0))" } ?? ""
        let property = identifier(attribute.name)
        var lines: [String] = []
        if isDynamic { lines.append("    // \"\(attribute.name)\" had a dynamic initial value: give its closure as dynamicInitialValue.") }
        if attribute.isOptional {
            lines.append("    @Field.Stored(\(literal(attribute.name))\(previous)) var \(property): \(type)?")
        } else {
            lines.append("    @Field.Stored(\(literal(attribute.name))\(previous)) var \(property): \(type) = \(initialValue(attribute))")
        }
        return lines
    }

    static func relationshipDeclaration(_ relationship: RelationshipDescription, owner: String, className: [String: String]) -> String {
        let destination = className[relationship.destinationEntity] ?? relationship.destinationEntity
        var arguments = [literal(relationship.name)]
        // Declared on one side of each pair (CoreStore needs one): the side named first.
        if let inverse = relationship.inverseName, (owner, relationship.name) <= (relationship.destinationEntity, inverse) {
            arguments.append("inverse: \\\(destination).$\(identifier(inverse))")
        }
        if relationship.deleteRule != .nullify { arguments.append("deleteRule: .\(relationship.deleteRule)") }
        if relationship.minCount != 0 { arguments.append("minCount: \(relationship.minCount)") }
        if relationship.maxCount != 0 { arguments.append("maxCount: \(relationship.maxCount)") }
        if let previous = relationship.renamingIdentifier { arguments.append("previousVersionKeyPath: \(literal(previous))") }
        let type = switch relationship.kind {
        case .toOne: "\(destination)?"
        case .toManyOrdered: "[\(destination)]"
        case .toManyUnordered: "Set<\(destination)>"
        }
        return "@Field.Relationship(\(arguments.joined(separator: ", "))) var \(identifier(relationship.name)): \(type)"
    }

    static func schemaDeclaration(_ schema: CoreStoreSchema, runtime: RuntimeSchema, className: [String: String]) -> String {
        var lines = ["CoreStoreSchema(", "    modelVersion: \(literal(schema.modelVersion)),", "    entities: ["]
        for entity in runtime.entities {
            let name = className[entity.name] ?? entity.name
            var arguments = [literal(entity.name)]
            if entity.description.isAbstract { arguments.append("isAbstract: true") }
            let keyPaths = { (lists: [[String]]) in
                "[" + lists.map { "[" + $0.map { "\\\(name).$\(identifier($0))" }.joined(separator: ", ") + "]" }.joined(separator: ", ") + "]"
            }
            let indexes = entity.description.indexes + entity.description.attributes.filter(\.isIndexed).map { [$0.name] }
            var ownIndexes: [[String]] = []
            for index in indexes where !index.isEmpty && !ownIndexes.contains(index) && !inherited(index, entity, runtime, \.indexes) {
                ownIndexes.append(index)
            }
            if !ownIndexes.isEmpty { arguments.append("indexes: \(keyPaths(ownIndexes))") }
            let ownUniques = entity.description.uniqueConstraints.filter { !inherited($0, entity, runtime, \.uniqueConstraints) }
            if !ownUniques.isEmpty { arguments.append("uniqueConstraints: \(keyPaths(ownUniques))") }
            lines.append("        Entity<\(name)>(\(arguments.joined(separator: ", "))),")
        }
        lines.append("    ],")
        let lock = runtime.versionLock.description.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n")
        lines.append("    versionLock: " + lock.dropFirst(4))
        lines.append(")")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func inherited(_ fields: [String], _ entity: EntityMetadata, _ runtime: RuntimeSchema, _ list: KeyPath<EntityDescription, [[String]]>) -> Bool {
        guard let parent = entity.description.parentName.flatMap({ runtime.entitiesByName[$0] }) else { return false }
        return parent.description[keyPath: list].contains(fields)
    }

    static func swiftType(_ type: AttributeType) -> String {
        switch type {
        case .bool: "Bool"
        case .integer: "Int"
        case .double: "Double"
        case .decimal: "Decimal"
        case .string: "String"
        case .bytes: "Data"
        case .date: "Date"
        case .uuid: "UUID"
        case .url: "URL"
        }
    }

    /// The Swift expression of a non-optional attribute's initial value.
    static func initialValue(_ attribute: AttributeDescription) -> String {
        switch (attribute.type, attribute.defaultValue) {
        case (_, .bool(let value)): return "\(value)"
        case (_, .int(let value)): return "\(value)"
        case (_, .double(let value)): return value.isFinite ? "\(value)" : (value.isNaN ? ".nan" : (value > 0 ? ".infinity" : "-.infinity"))
        case (_, .decimal(let value)): return "Decimal(string: \(literal("\(value)")))!"
        case (.url, .string(let value)): return "URL(string: \(literal(value)))!"
        case (_, .string(let value)): return literal(value)
        case (_, .bytes(let value)): return value.isEmpty ? "Data()" : "Data(base64Encoded: \(literal(value.base64EncodedString())))!"
        case (_, .date(let value)): return "Date(timeIntervalSinceReferenceDate: \(value.timeIntervalSinceReferenceDate))"
        case (_, .uuid(let value)): return "UUID(uuidString: \(literal(value.uuidString)))!"
        case (let type, .null):
            switch type {
            case .bool: return "false"
            case .integer: return "0"
            case .double: return "0"
            case .decimal: return "Decimal()"
            case .string: return "\"\""
            case .bytes: return "Data()"
            case .date: return "Date(timeIntervalSinceReferenceDate: 0)"
            case .uuid: return "UUID()"
            case .url: return "URL(string: \"about:blank\")!"
            }
        }
    }

    /// `text` as a Swift string literal.
    static func literal(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A field name as a Swift identifier (backquoted when it is a keyword).
    static func identifier(_ name: String) -> String {
        let keywords: Set<String> = ["class", "struct", "enum", "protocol", "extension", "func", "var", "let", "import", "default", "case", "switch", "if", "else", "for", "in", "while", "return", "self", "Self", "super", "init", "deinit", "subscript", "operator", "static", "public", "private", "internal", "true", "false", "nil", "is", "as", "try", "throw", "throws", "where", "repeat", "do", "catch", "guard", "defer", "break", "continue", "fallthrough", "inout", "typealias", "associatedtype", "Type", "Any"]
        return keywords.contains(name) ? "`\(name)`" : name
    }
}
