import CoreStore
import CoreStoreStorage
import Foundation
import Testing

/// `corestore migrate` and `inspect --schema`, run as a user runs them: the schema a store
/// records is the one the app's model gives, and a migration to an edited schema is forecast
/// without changes, then run.
@Suite("corestore migrate", .serialized)
struct StoreMigrateTests {
    @Test("inspect --schema prints what the app's storeSchemaJSON() gives, and migrate forecasts, then runs, an inferred step", arguments: StoreToolModel.backends)
    func forecastAndRun(backend: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("corestore-migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.\(backend)").path
        try StoreToolModel.writeStore(backend, at: URL(fileURLWithPath: path))

        let recorded = try CorestoreExecutable.runSeparated(["inspect", path, "--schema"])
        #expect(recorded.status == 0, "\(recorded.stderr)")
        #expect(recorded.stdout == (try StoreToolModel.schema.storeSchemaJSON()) + "\n")

        // Version 2: Book gains `subtitle` (default "untitled") and loses `weight`.
        let v1 = try JSONDecoder().decode(StoreSchema.self, from: Data(recorded.stdout.utf8))
        let entities = v1.entities.map { entity -> EntityDescription in
            guard entity.name == "Book" || entity.parentName == "Book" else { return entity }
            var changed = entity
            changed.attributes.removeAll { $0.name == "weight" }
            changed.attributes.insert(AttributeDescription(name: "subtitle", type: .string, isOptional: false, defaultValue: .string("untitled")), at: 2)
            return changed
        }
        let v2 = StoreSchema(modelVersion: "ToolV2", schemaHash: "tool-v2-hash", entities: entities)
        let file = directory.appendingPathComponent("v2.json")
        try Data(StoredMetadata.schemaJSON(v2).utf8).write(to: file)

        let before = try CorestoreExecutable.runSeparated(["dump", path]).stdout
        let forecast = try CorestoreExecutable.runSeparated(["migrate", path, "--schema", file.path, "--dry-run"])
        #expect(forecast.status == 0, "\(forecast.stderr)")
        #expect(forecast.stdout == "\(path): lightweight(sourceVersion: \"ToolV1\", destinationVersion: \"ToolV2\")\n")
        #expect(try CorestoreExecutable.runSeparated(["dump", path]).stdout == before)

        let run = try CorestoreExecutable.runSeparated(["migrate", path, "--schema", file.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Migrated \(path) from 'ToolV1' to 'ToolV2'"))
        let inspect = try CorestoreExecutable.runSeparated(["inspect", path])
        #expect(inspect.stdout.contains("Model version: ToolV2\n"))
        #expect(inspect.stdout.contains("subtitle"))
        #expect(!inspect.stdout.contains("weight"))
        let after = try CorestoreExecutable.runSeparated(["dump", path, "--entity", "Book"]).stdout
        #expect(after.split(separator: "\n").count == 3)
        #expect(after.split(separator: "\n").allSatisfy { $0.contains("\"subtitle\":\"untitled\"") && !$0.contains("weight") })
        #expect(after.contains("\"title\":\"Ünïcode ✓\""))
        let check = try CorestoreExecutable.runSeparated(["check", path, "--quiet"])
        #expect(check.status == 0, "\(check.stdout)")
        let again = try CorestoreExecutable.runSeparated(["migrate", path, "--schema", file.path])
        #expect(again.stdout.contains("is already at model version 'ToolV2'"))
    }

    @Test("A schema file that is not a schema, or a step that cannot be inferred, is refused and changes nothing")
    func refused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("corestore-migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.lmdb").path
        try StoreToolModel.writeStore("lmdb", at: URL(fileURLWithPath: path))
        let before = try CorestoreExecutable.runSeparated(["dump", path]).stdout
        let garbage = directory.appendingPathComponent("garbage.json")
        try Data("{\"modelVersion\": 3}".utf8).write(to: garbage)
        let notSchema = try CorestoreExecutable.runSeparated(["migrate", path, "--schema", garbage.path])
        #expect(notSchema.status != 0)
        #expect(notSchema.stderr.contains("is not a schema"))
        // Book's isbn becomes a UUID: no inferred mapping turns text into UUIDs.
        let v1 = try JSONDecoder().decode(StoreSchema.self, from: Data(try StoreToolModel.schema.storeSchemaJSON().utf8))
        let entities = v1.entities.map { entity -> EntityDescription in
            var changed = entity
            for i in changed.attributes.indices where changed.attributes[i].name == "isbn" {
                changed.attributes[i].type = .uuid
                changed.attributes[i].defaultValue = .null
                changed.attributes[i].isOptional = true
            }
            return changed
        }
        let file = directory.appendingPathComponent("v2.json")
        try Data(StoredMetadata.schemaJSON(StoreSchema(modelVersion: "ToolV2", schemaHash: "other", entities: entities)).utf8).write(to: file)
        let impossible = try CorestoreExecutable.runSeparated(["migrate", path, "--schema", file.path])
        #expect(impossible.status != 0)
        #expect(impossible.stderr.contains("cannot infer the migration") || impossible.stderr.contains("migrating \(path) failed"), "\(impossible.stderr)")
        #expect(try CorestoreExecutable.runSeparated(["dump", path]).stdout == before)
    }
}
