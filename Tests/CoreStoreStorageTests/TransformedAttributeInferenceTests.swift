import Foundation
import Testing
@testable import CoreStoreStorage

/// What inference refuses for an inferred step is left to the transformer of a
/// `.transformEntity` mapping: the transformer sets the value, and a `nil` it leaves in a
/// non-optional attribute still fails the step.
@Suite("Inference under a transformer")
struct TransformedAttributeInferenceTests {
    typealias F = MigrationFixtures

    /// V2 of the fixtures with `Person.score` a string and a new non-optional `city` without default.
    static let retyped: StoreSchema = {
        var person = F.v2.entities[0]
        person.attributes[2] = AttributeDescription(name: "score", type: .string, isOptional: false, defaultValue: .string(""), renamingIdentifier: "age")
        person.attributes.append(AttributeDescription(name: "city", type: .string, isOptional: false))
        return StoreSchema(modelVersion: "V2", schemaHash: "h2r", entities: [person, F.v2.entities[1]])
    }()

    @Test("A changed type and a new required attribute are refused by inference, mapped by a transformer")
    func transformerMapsWhatInferenceRefuses() throws {
        #expect(throws: MigrationError.self) { try InferredSchemaMappingProvider().schemaMapping(from: F.v1, to: Self.retyped) }
        let provider = CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [
            .transformEntity(sourceEntity: "Person", destinationEntity: "Person") { source, create in
                let person = create()
                var inferred: [String] = []
                person.enumerateAttributes { attribute, sourceAttribute in inferred.append("\(attribute.name)←\(sourceAttribute?.name ?? "-")") }
                #expect(inferred == ["name←name", "nickname←nick", "score←-", "email←-", "city←-"])
                person["name"] = source["name"]
                person["score"] = "\(source["age"] as? Int64 ?? -1) years"
                person["city"] = "Oslo"
            },
        ])
        let mapping = try provider.schemaMapping(from: F.v1, to: Self.retyped)
        let migration = DictionaryMigration(source: F.v1, destination: Self.retyped, records: F.records)
        _ = try SchemaMigrator(mapping: mapping).run(migration) { _, _ in }
        #expect(migration[1]?.attributes == [.string("Ann"), .string("none"), .string("30 years"), .null, .string("Oslo")])
        #expect(migration[2]?.attributes == [.string("Bob"), .string("none"), .string("40 years"), .null, .string("Oslo")])
    }

    @Test("A transformer that leaves a required attribute nil fails the step")
    func unsetRequiredAttributeFails() throws {
        let provider = CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [
            .transformEntity(sourceEntity: "Person", destinationEntity: "Person", transformer: CustomSchemaMappingProvider.CustomMapping.inferredTransformation),
        ])
        let mapping = try provider.schemaMapping(from: F.v1, to: Self.retyped)
        let error = #expect(throws: MigrationError.self) {
            try SchemaMigrator(mapping: mapping).run(DictionaryMigration(source: F.v1, destination: Self.retyped, records: F.records)) { _, _ in }
        }
        #expect(error?.reason.contains("non-optional attribute 'Person.city'") == true, "\(String(describing: error))")
    }
}
