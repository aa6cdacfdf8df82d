import Foundation
import Testing
import CoreStoreSQLite
import CoreStoreStorage

/// Writes by key stay on their entity's rows of a shared table (`EntityMapping.ownRowsTerm`):
/// a delete or update that names a record's key under another entity of its hierarchy changes
/// nothing, also when the store writes without reading the record first (an unread delete, an
/// update whose base the writer vouches for).
@Suite("SQLiteStore writes by key stay on their entity's rows")
struct SQLiteOwnRowsTests {
    static let schema = StoreSchema(modelVersion: "S1", schemaHash: "S1", entities: [
        EntityDescription(name: "Shape", attributes: [AttributeDescription(name: "label", type: .string, isOptional: true)]),
        EntityDescription(name: "Circle", parentName: "Shape", attributes: [
            AttributeDescription(name: "label", type: .string, isOptional: true),
            AttributeDescription(name: "radius", type: .double, isOptional: true),
        ]),
        EntityDescription(name: "Square", parentName: "Shape", attributes: [
            AttributeDescription(name: "label", type: .string, isOptional: true),
            AttributeDescription(name: "side", type: .double, isOptional: true),
        ]),
    ])

    private static func shape(_ entity: String, _ key: Int64, _ label: String, _ size: Double) -> Record {
        Record(id: RecordID(entity: entity, key: key), attributes: [.string(label), .double(size)], relationships: [])
    }

    /// A store holding one circle and one square; their keys and the last commit's sequence.
    private func seeded() throws -> (store: SQLiteStore, directory: TemporaryDirectory, circle: RecordID, square: RecordID, sequence: UInt64) {
        let directory = try TemporaryDirectory()
        let store = SQLiteStore(fileURL: directory.file())
        _ = try store.open(schema: Self.schema)
        let info = try store.write(ChangeSet(inserts: [Self.shape("Circle", -1, "c", 1), Self.shape("Square", -2, "s", 2)]))
        let circle = try #require(info.permanentIDs[RecordID(entity: "Circle", key: -1)])
        let square = try #require(info.permanentIDs[RecordID(entity: "Square", key: -2)])
        return (store, directory, circle, square, info.sequence)
    }

    @Test("An unread delete of a square's key named as a circle fails and keeps the square")
    func unreadDeleteUnderAnotherEntity() throws {
        let (store, directory, _, square, sequence) = try seeded()
        defer { store.close(); _ = directory }
        var changes = ChangeSet(deletes: [RecordID(entity: "Circle", key: square.key)], baseSequence: sequence)
        changes.returnsDeletedRecords = false
        #expect(throws: StorageError.self) { try store.write(changes) }
        #expect(try store.read { try $0.records([square]) } == [Self.shape("Square", square.key, "s", 2)])
        #expect(try store.read { try $0.count(FetchRequest(entity: "Shape")) } == 2)
    }

    @Test("An update with a vouched-for base of a square's key named as a circle fails and changes nothing")
    func vouchedUpdateUnderAnotherEntity() throws {
        let (store, directory, _, square, sequence) = try seeded()
        defer { store.close(); _ = directory }
        let wrong = RecordID(entity: "Circle", key: square.key)
        let base = Self.shape("Circle", square.key, "s", 2)
        let update = RecordUpdate(record: Self.shape("Circle", square.key, "renamed", 2), changedKeys: ["label"], base: base)
        #expect(throws: StorageError.self) { try store.write(ChangeSet(updates: [update], baseSequence: sequence)) }
        #expect(try store.read { try $0.records([square]) } == [Self.shape("Square", square.key, "s", 2)])
        #expect(try store.read { try $0.records([wrong]) } == [nil])
    }
}
