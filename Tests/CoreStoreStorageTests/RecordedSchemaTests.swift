import Foundation
import Testing
@testable import CoreStoreStorage

/// The schema a store keeps in its metadata: its JSON form reads back as the same schema, and
/// text that is not a schema of the store's version is refused with a clear error.
@Suite("Recorded schemas")
struct RecordedSchemaTests {
    static let schema = StoreSchema(modelVersion: "V3", schemaHash: "hash-3", entities: [
        EntityDescription(name: "Animal", isAbstract: true, attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: .string("?"), isIndexed: true),
        ]),
        EntityDescription(name: "Dog", parentName: "Animal", attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: .string("?"), isIndexed: true),
            AttributeDescription(name: "born", type: .date, isOptional: true, defaultValue: .date(Date(timeIntervalSinceReferenceDate: 12.5))),
            AttributeDescription(name: "weight", type: .double, isOptional: false, defaultValue: .double(.nan)),
            AttributeDescription(name: "reach", type: .double, isOptional: false, defaultValue: .double(-.infinity)),
            AttributeDescription(name: "price", type: .decimal, isOptional: false, defaultValue: .decimal(Decimal(string: "12.345678901234567890")!)),
            AttributeDescription(name: "chip", type: .bytes, isOptional: true, defaultValue: .bytes(Data([0, 255, 7]))),
            AttributeDescription(name: "uid", type: .uuid, isOptional: true, defaultValue: .uuid(UUID(uuidString: "12345678-1234-1234-1234-123456789ABC")!)),
            AttributeDescription(name: "good", type: .bool, isOptional: false, defaultValue: .bool(true), renamingIdentifier: "isGood"),
            AttributeDescription(name: "legs", type: .integer, isOptional: false, defaultValue: .int(.min)),
            AttributeDescription(name: "home", type: .url, isOptional: true),
        ], relationships: [
            RelationshipDescription(name: "owner", kind: .toOne, destinationEntity: "Person", inverseName: "dogs", deleteRule: .nullify),
        ], indexes: [["name", "legs"]], uniqueConstraints: [["uid"]]),
        EntityDescription(name: "Person", attributes: [], relationships: [
            RelationshipDescription(name: "dogs", kind: .toManyOrdered, destinationEntity: "Dog", inverseName: "owner", deleteRule: .cascade, minCount: 1, maxCount: 9),
        ]),
    ])

    @Test("Every kind of value, attribute, relationship, index and constraint reads back the same")
    func roundTrip() throws {
        var metadata = StoredMetadata(modelVersion: "V3", schemaHash: "hash-3", userInfo: ["app": "kept"])
        metadata.recordSchema(Self.schema)
        let read = try #require(try metadata.recordedSchema(store: "test"))
        #expect(read == Self.schema)
        #expect(metadata.userInfo["app"] == "kept")
        // Value equality compares doubles by bits: NaN and -inf came back as they were.
        #expect(read.entity(named: "Dog")?.attributes[2].defaultValue == .double(.nan))
        #expect(read.entity(named: "Dog")?.attributes[4].defaultValue == .decimal(Decimal(string: "12.345678901234567890")!))
        #expect(StoredMetadata.schemaJSON(read) == StoredMetadata.schemaJSON(Self.schema))
    }

    @Test("A store without a recorded schema has none")
    func absent() throws {
        #expect(try StoredMetadata(modelVersion: "V3", schemaHash: "hash-3").recordedSchema(store: "test") == nil)
    }

    @Test("A recorded schema that is not JSON, not a schema, inconsistent, or of another version is refused", arguments: [
        ("not json", "cannot be read"),
        ("{\"modelVersion\":\"V3\",\"schemaHash\":\"hash-3\"}", "cannot be read"),
        ("{\"modelVersion\":\"V3\",\"schemaHash\":\"hash-3\",\"entities\":[{\"name\":\"Dog\",\"parentName\":\"Animal\",\"isAbstract\":false,\"attributes\":[],\"relationships\":[],\"indexes\":[],\"uniqueConstraints\":[]}]}", "comes before its parent"),
        ("{\"modelVersion\":\"V3\",\"schemaHash\":\"hash-3\",\"entities\":[{\"name\":\"A\",\"isAbstract\":false,\"attributes\":[{\"name\":\"x\",\"type\":\"integer\",\"isOptional\":false,\"isIndexed\":false,\"defaultValue\":{\"int\":\"seven\"}}],\"relationships\":[],\"indexes\":[],\"uniqueConstraints\":[]}]}", "cannot be read"),
        ("{\"modelVersion\":\"V2\",\"schemaHash\":\"hash-2\",\"entities\":[]}", "of model version 'V2' (hash hash-2), but its data is of 'V3' (hash hash-3)"),
    ])
    func refused(text: String, message: String) throws {
        let metadata = StoredMetadata(modelVersion: "V3", schemaHash: "hash-3", userInfo: [StoredMetadata.schemaKey: text])
        #expect {
            _ = try metadata.recordedSchema(store: "/data/store")
        } throws: { error in
            guard case .incompatibleStore(let path, let reason) = error as? StorageError else { return false }
            return path == "/data/store" && reason.contains(message)
        }
    }

    @Test("A relationship to an entity the schema lacks is refused")
    func danglingRelationship() throws {
        let broken = StoreSchema(modelVersion: "V3", schemaHash: "hash-3", entities: [Self.schema.entities[1].withParent(nil)])
        var metadata = StoredMetadata(modelVersion: "V3", schemaHash: "hash-3")
        metadata.recordSchema(broken)
        #expect(throws: StorageError.self) { _ = try metadata.recordedSchema(store: "test") }
    }
}

private extension EntityDescription {
    func withParent(_ parent: String?) -> EntityDescription {
        var copy = self
        copy.parentName = parent
        return copy
    }
}
