import CoreStore
import Foundation

/// The benchmark entity as a CoreStore model object, importable from ``BenchRow``s unique by `id`.
final class BenchItem: CoreStoreObject, ImportableUniqueObject {
    @Field.Stored("id") var itemID: Int64 = 0
    @Field.Stored("name") var name: String = ""
    @Field.Stored("age") var age: Int = 0
    @Field.Stored("score") var score: Double = 0
    @Field.Stored("created") var created: Date = Date(timeIntervalSince1970: 0)

    /// The schema: one entity, `id` and `age` indexed.
    static let schema = CoreStoreSchema(
        modelVersion: "Bench1",
        entities: [Entity<BenchItem>("Item", indexes: [[\BenchItem.$itemID], [\BenchItem.$age]])]
    )

    /// Copies `row` into this (new) object.
    func assign(_ row: BenchRow) {
        itemID = row.id
        name = row.name
        age = row.age
        score = row.score
        created = row.created
    }

    typealias ImportSource = BenchRow

    static let uniqueIDKeyPath = String(keyPath: \BenchItem.$itemID)

    var uniqueIDValue: Int64 {
        get { itemID }
        set { itemID = newValue }
    }

    static func uniqueID(from source: BenchRow, in transaction: BaseDataTransaction) throws -> Int64? {
        source.id
    }

    func update(from source: BenchRow, in transaction: BaseDataTransaction) throws {
        assign(source)
    }

    /// Adds every field to `checksum`.
    func addFields(to checksum: inout Checksum, position: Int64 = 1) {
        checksum.add(id: itemID, name: name, age: age, score: score, created: created.timeIntervalSince1970, position: position)
    }
}
