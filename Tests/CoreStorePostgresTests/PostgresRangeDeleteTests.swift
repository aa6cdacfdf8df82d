import Foundation
import Testing
import CoreStore
import CoreStorePostgres

final class RangePen: CoreStoreObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("favorites") var favorites: Set<RangeAnimal>
}

final class RangeAnimal: CoreStoreObject {
    @Field.Stored("name") var name: String = ""
}

/// The shared SQL writer deletes runs of consecutive keys by one key range, the rest by key
/// lists; on PostgreSQL the range is `BETWEEN $1 AND $2`, for the rows and their join table.
@Suite("PostgreSQL range deletes", .serialized)
struct PostgresRangeDeleteTests {
    static let schema = CoreStoreSchema(modelVersion: "V1", entities: [Entity<RangePen>("RangePen"), Entity<RangeAnimal>("RangeAnimal")])

    @Test func runsAndScatteredKeys() throws {
        let url = try PostgresTestServer.requireURL()
        let schemaName = "range_deletes_\(UInt32.random(in: 0...UInt32.max))"
        defer { try? PostgresStore(url: url, schemaName: schemaName).erase() }
        let stack = DataStack(Self.schema)
        try stack.addStorageAndWait(PostgresStore(url: url, schemaName: schemaName))
        try stack.perform(synchronous: { transaction in
            // The pens first, so that their keys are consecutive.
            let pens = (0..<60).map { i -> RangePen in
                let pen = transaction.create(Into<RangePen>())
                pen.name = String(format: "p%02d", i)
                return pen
            }
            for pen in pens {
                let animal = transaction.create(Into<RangeAnimal>())
                animal.name = "a" + pen.name.dropFirst()
                pen.favorites = [animal]
            }
        })
        let doomed = (10..<40).map { String(format: "p%02d", $0) } + ["p45", "p50", "p59"]
        let deleted = try stack.perform(synchronous: { transaction in
            try transaction.deleteAll(From<RangePen>().where(\.$name ~= doomed))
        })
        #expect(deleted == 33)
        let kept = try stack.fetchAll(From<RangePen>().orderBy(.ascending(\.$name)))
        #expect(kept.map(\.name) == (0..<60).map { String(format: "p%02d", $0) }.filter { !doomed.contains($0) })
        #expect(kept.map { $0.favorites.first?.name } == kept.map { "a" + $0.name.dropFirst() })
        #expect(try stack.fetchCount(From<RangeAnimal>()) == 60)
    }
}
