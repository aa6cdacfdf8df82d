import Foundation
import Testing
import CoreStoreStorage
import AppendLogStore

/// The store migrates through `KeyValueStorageWrapper` with no code of its own: the new version
/// is written beside the old one and becomes current in one append.
@Test func anAppendLogStoreMigratesWithNoCodeOfItsOwn() throws {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("append-log-\(UUID().uuidString).log")
    defer { try? FileManager.default.removeItem(at: url) }
    func schema(_ version: String, _ attributes: [String]) -> StoreSchema {
        StoreSchema(modelVersion: version, schemaHash: "hash-\(version)", entities: [
            EntityDescription(name: "Note", attributes: attributes.map { AttributeDescription(name: $0, type: .string, isOptional: true, isIndexed: true) }),
        ])
    }
    let v1 = schema("V1", ["title"]), v2 = schema("V2", ["title", "subtitle"])
    let store = AppendLogStore(fileURL: url)
    _ = try store.open(schema: v1)
    _ = try store.write(ChangeSet(inserts: ["a", "b"].enumerated().map { i, title in
        Record(id: RecordID(entity: "Note", key: -Int64(i + 1)), attributes: [.string(title)], relationships: [])
    }))
    store.close()

    let migration = try AppendLogStore(fileURL: url).beginMigration(from: v1, to: v2)
    try migration.scanSource(entity: "Note", batchSize: 1) { records in
        try migration.writeDestination(MergedChanges(inserts: records.map { Record(id: $0.id, attributes: $0.attributes + [.string("new")], relationships: []) }))
    }
    try migration.finish(metadata: StoredMetadata(modelVersion: "V2", schemaHash: "hash-V2"), counters: migration.sourceCounters)

    let reopened = AppendLogStore(fileURL: url)
    defer { reopened.close() }
    #expect(try reopened.open(schema: v2) == StoredMetadata(modelVersion: "V2", schemaHash: "hash-V2"))
    let request = FetchRequest(entity: "Note", predicate: .comparison(Comparison("subtitle", .equal, .string("new"))))
    #expect(try reopened.read { try $0.fetch(request).records.map { $0.attributes[0] } } == [.string("a"), .string("b")])
}
