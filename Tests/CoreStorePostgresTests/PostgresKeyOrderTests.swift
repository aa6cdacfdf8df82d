import Foundation
import Testing
@testable import CoreStore
import CoreStoreSQL
import CoreStoreStorage
@testable import CoreStorePostgres

final class KeyOrderTile: CoreStoreObject {
    @Field.Stored("label") var label: String = ""
    @Field.Stored("row") var row: Int = 0
}

/// On PostgreSQL an unsorted, unwindowed fetch selects without `ORDER BY` and the reader puts
/// the rows in record-key order: also when updates moved rows in the table, so that the server
/// returns them out of key order.
@Suite("PostgreSQL fetches in key order without ORDER BY", .serialized)
struct PostgresKeyOrderTests {
    static let schema = CoreStoreSchema(modelVersion: "V1", entities: [Entity<KeyOrderTile>("KeyOrderTile")])

    @Test func rowsMovedByUpdatesStillComeInKeyOrder() throws {
        let url = try PostgresTestServer.requireURL()
        let schemaName = "key_order_\(UInt32.random(in: 0...UInt32.max))"
        defer { try? PostgresStore(url: url, schemaName: schemaName).erase() }
        let stack = DataStack(Self.schema)
        try stack.addStorageAndWait(PostgresStore(url: url, schemaName: schemaName))
        try stack.perform(synchronous: { transaction in
            for i in 0..<300 {
                let tile = transaction.create(Into<KeyOrderTile>())
                tile.label = "t\(i)"
                tile.row = i % 7
            }
        })
        let inserted = try stack.fetchAll(From<KeyOrderTile>())
        let keys = inserted.map { $0.cs_id()!.recordID.key }
        #expect(keys == keys.sorted() && Set(keys).count == 300)
        // Updates write new row versions at the table's end: a sequential scan now returns
        // the updated rows after the others.
        try stack.perform(synchronous: { transaction in
            for tile in try transaction.fetchAll(From<KeyOrderTile>().where(\.$row == 3)) { tile.label += "!" }
        })
        let connection = try PostgresConnection(connectionString: url, location: "test")
        try connection.execute("SET search_path TO \(schemaName)")
        var scanned: [Int64] = []
        try connection.statement("SELECT \"_key\" FROM \"KeyOrderTile\"").query { scanned.append($0.int64(0)) }
        #expect(scanned.count == 300 && scanned != scanned.sorted(), "the table no longer holds its rows in key order")

        let all = try stack.fetchAll(From<KeyOrderTile>())
        #expect(all.map { $0.cs_id()!.recordID.key } == keys)
        #expect(all.filter { $0.label.hasSuffix("!") }.count == 300 / 7 + (300 % 7 > 3 ? 1 : 0))
        let someRows = try stack.fetchAll(From<KeyOrderTile>().where(\.$row >= 2 && \.$row <= 4))
        let expected = keys.enumerated().filter { (2...4).contains($0.offset % 7) }.map(\.element)
        #expect(someRows.map { $0.cs_id()!.recordID.key } == expected)
    }

    @Test(arguments: [0, 1, 2, 5, 1_000])
    func orderByKeySortsOnlyWhatIsOutOfOrder(count: Int) {
        var g = SystemRandomNumberGenerator()
        let keys = (0..<count).map { Int64($0 * 3 - 50) }
        for input in [keys, keys.reversed(), keys.shuffled(using: &g)] {
            var records = input.map { Record(id: RecordID(entity: "E", key: $0), attributes: [.int($0)], relationships: []) }
            SQLReader<PostgresConnection>.orderByKey(&records)
            #expect(records.map(\.id.key) == keys)
            #expect(records.map(\.attributes) == keys.map { [.int($0)] })
        }
    }
}
