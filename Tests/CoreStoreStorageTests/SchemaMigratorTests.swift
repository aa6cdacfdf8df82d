import Foundation
import Testing
@testable import CoreStoreStorage

@Suite("Migration engine")
struct SchemaMigratorTests {
    typealias F = MigrationFixtures

    @Test("An inferred step copies, renames, drops and defaults attributes and keeps relationships, batch by batch")
    func inferredCopy() throws {
        let mapping = try InferredSchemaMappingProvider().schemaMapping(from: F.v1, to: F.v2)
        #expect(mapping.migrationType == .lightweight(sourceVersion: "V1", destinationVersion: "V2"))
        let migration = DictionaryMigration(source: F.v1, destination: F.v2, records: F.records)
        var reports: [(Int64, Int64)] = []
        let counters = try SchemaMigrator(mapping: mapping, batchSize: 2).run(migration) { reports.append(($0, $1)) }
        #expect(counters == CommitCounters(nextKey: 6, sequence: 8))
        #expect(migration[1] == Record(id: RecordID(entity: "Person", key: 1), attributes: [.string("Ann"), .string("A"), .int(5), .null],
                                       relationships: [[RecordID(entity: "Dog", key: 3), RecordID(entity: "Dog", key: 4)]]))
        #expect(migration[2]?.attributes == [.string("Bob"), .string("none"), .int(5), .null])
        #expect(migration[5]?.relationships == [[RecordID(entity: "Person", key: 2)]])
        #expect(migration.destinationRecords.count == 5)
        #expect(migration.largestBatch == 2)
        #expect(reports.first.map { $0.0 } == 0 && reports.last.map { $0.0 } == 5 && reports.allSatisfy { $0.1 == 5 })
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.0 <= $1.0 })
    }

    @Test("A finished step records the destination's version, hash and schema, and drops the source's version lock")
    func finishRecordsTheDestinationSchema() throws {
        let mapping = try InferredSchemaMappingProvider().schemaMapping(from: F.v1, to: F.v2)
        let migration = DictionaryMigration(source: F.v1, destination: F.v2, records: F.records)
        try SchemaMigrator(mapping: mapping, batchSize: 2).migrate(migration) { _, _ in }
        let metadata = try #require(migration.finishedMetadata)
        #expect(metadata.modelVersion == F.v2.modelVersion && metadata.schemaHash == F.v2.schemaHash)
        #expect(try metadata.recordedSchema(store: "test") == F.v2)
        #expect(metadata.userInfo[StoredMetadata.versionLockKey] == nil)
    }

    @Test("Objects a transformer drops disappear from every relationship, also from records written before")
    func droppedObjects() throws {
        let provider = CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [
            .transformEntity(sourceEntity: "Dog", destinationEntity: "Dog") { source, create in
                if source["name"] as? String != "Fido" { try CustomSchemaMappingProvider.CustomMapping.inferredTransformation(source, create) }
            },
            .transformEntity(sourceEntity: "Person", destinationEntity: "Person") { source, create in
                guard source["name"] as? String != "Bob" else { return }
                let person = create()
                person["name"] = (source["name"] as! String).uppercased()
                person["score"] = (source["age"] as! Int64) / 10
            },
        ])
        let mapping = try provider.schemaMapping(from: F.v1, to: F.v2)
        #expect(mapping.migrationType.isHeavyweightMigration)
        let migration = DictionaryMigration(source: F.v1, destination: F.v2, records: F.records)
        _ = try SchemaMigrator(mapping: mapping, batchSize: 1).run(migration) { _, _ in }
        #expect(Set(migration.destinationRecords.keys) == [1, 3, 5])
        #expect(migration[1]?.attributes == [.string("ANN"), .string("none"), .int(3), .null])
        #expect(migration[1]?.relationships == [[RecordID(entity: "Dog", key: 3)]])
        #expect(migration[5]?.relationships == [[]], "Max's owner Bob was dropped after Max was written")
        #expect(migration[3]?.relationships == [[RecordID(entity: "Person", key: 1)]])
    }

    @Test("A relationship assigned by a transformer is kept on both sides")
    func assignedRelationship() throws {
        let provider = CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [
            .transformEntity(sourceEntity: "Dog", destinationEntity: "Dog") { source, create in
                let dog = create()
                dog.enumerateAttributes { attribute, sourceAttribute in
                    if let sourceAttribute { dog[attribute] = source[sourceAttribute] }
                }
                if source["name"] as? String == "Max" {
                    let owner = source["owner"] as? CustomSchemaMappingProvider.UnsafeSourceObject
                    #expect(owner?["name"] as? String == "Bob")
                    dog["owner"] = nil as UnsafeSourceObject?
                }
                if source["name"] as? String == "Rex" {
                    let ann = source["owner"] as! UnsafeSourceObject
                    let bob = try #require((ann["pets"] as? [UnsafeSourceObject])?.first)
                    #expect(bob["name"] as? String == "Rex")
                }
            },
        ])
        let migration = DictionaryMigration(source: F.v1, destination: F.v2, records: F.records)
        _ = try SchemaMigrator(mapping: try provider.schemaMapping(from: F.v1, to: F.v2)).run(migration) { _, _ in }
        #expect(migration[5]?.relationships == [[]])
        #expect(migration[2]?.relationships == [[]], "Bob lost Max through the inverse")
        #expect(migration[5]?.attributes == [.string("Max")])
    }

    @Test("A transformer that creates two objects gets new keys for the second")
    func twoObjectsFromOne() throws {
        let provider = CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [
            .transformEntity(sourceEntity: "Dog", destinationEntity: "Dog") { source, create in
                create()["name"] = source["name"]
                create()["name"] = "\(source["name"] as! String) Jr."
            },
        ])
        let migration = DictionaryMigration(source: F.v1, destination: F.v2, records: F.records)
        let counters = try SchemaMigrator(mapping: try provider.schemaMapping(from: F.v1, to: F.v2)).run(migration) { _, _ in }
        #expect(counters.nextKey == 9)
        #expect(migration.destinationRecords.values.filter { $0.id.entity == "Dog" }.map { $0.attributes[0] }.count == 6)
        #expect(migration[6]?.attributes == [.string("Rex Jr.")])
        #expect(migration[6]?.relationships == [[]])
    }

    @Test("Errors: a throwing transformer, a wrong value, a nil in a non-optional attribute")
    func recordErrors() throws {
        struct Refused: Error {}
        let throwing = CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [
            .transformEntity(sourceEntity: "Dog", destinationEntity: "Dog") { _, _ in throw Refused() },
        ])
        #expect(throws: TransformerError.self) {
            try SchemaMigrator(mapping: try throwing.schemaMapping(from: F.v1, to: F.v2)).run(DictionaryMigration(source: F.v1, destination: F.v2, records: F.records)) { _, _ in }
        }
        let wrongType = CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [
            .transformEntity(sourceEntity: "Person", destinationEntity: "Person") { _, create in create()["score"] = "many" },
        ])
        let error = #expect(throws: MigrationError.self) {
            try SchemaMigrator(mapping: try wrongType.schemaMapping(from: F.v1, to: F.v2)).run(DictionaryMigration(source: F.v1, destination: F.v2, records: F.records)) { _, _ in }
        }
        #expect(error?.reason.contains("Person.score") == true)
        let missing = CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [
            .transformEntity(sourceEntity: "Person", destinationEntity: "Person") { source, create in
                let person = create()
                person["name"] = source["name"]
                person["nickname"] = nil as String?
            },
        ])
        let nilError = #expect(throws: MigrationError.self) {
            try SchemaMigrator(mapping: try missing.schemaMapping(from: F.v1, to: F.v2)).run(DictionaryMigration(source: F.v1, destination: F.v2, records: F.records)) { _, _ in }
        }
        #expect(nilError?.reason.contains("non-optional attribute 'Person.nickname'") == true)
    }

    @Test("Inference refuses what it cannot map without loss", arguments: [
        ("type", "changes type from integer to string"),
        ("newRequired", "is not optional and has no default value"),
        ("toOne", "changes from to-many to to-one"),
        ("abstract", "which is abstract"),
    ])
    func inferenceErrors(change: String, message: String) throws {
        var person = F.v2.entities[0]
        var dog = F.v2.entities[1]
        switch change {
        case "type": person.attributes[2] = AttributeDescription(name: "age", type: .string, isOptional: false, defaultValue: .string(""))
        case "newRequired": person.attributes.append(AttributeDescription(name: "city", type: .string, isOptional: false))
        case "toOne":
            person.relationships[0] = RelationshipDescription(name: "dogs", kind: .toOne, destinationEntity: "Dog", inverseName: "owner", renamingIdentifier: "pets")
        default: dog.isAbstract = true
        }
        let v2 = StoreSchema(modelVersion: "V2", schemaHash: "h2x", entities: [person, dog])
        let error = #expect(throws: MigrationError.self) { try InferredSchemaMappingProvider().schemaMapping(from: F.v1, to: v2) }
        #expect(error?.reason.contains(message) == true, "\(String(describing: error))")
    }

    @Test("An attributes-only step is offered to the engine's native path")
    func lightweightStep() throws {
        var person = F.v1.entities[0]
        person.attributes.append(AttributeDescription(name: "score", type: .integer, isOptional: false, defaultValue: .int(5)))
        person.attributes[1] = AttributeDescription(name: "nickname", type: .string, isOptional: true, renamingIdentifier: "nick")
        let v2 = StoreSchema(modelVersion: "V2", schemaHash: "h2", entities: [person, F.v1.entities[1]])
        let step = try #require(try InferredSchemaMappingProvider().schemaMapping(from: F.v1, to: v2).lightweightStep)
        #expect(step.attributes["Person"] == [.attribute("name", nullReplacement: nil), .attribute("nick", nullReplacement: nil),
                                              .attribute("age", nullReplacement: nil), .constant(.int(5))])
        #expect(try InferredSchemaMappingProvider().schemaMapping(from: F.v1, to: F.v2).lightweightStep == nil, "a renamed relationship needs a copy")
    }
}
