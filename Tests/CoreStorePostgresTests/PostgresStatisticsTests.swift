import Foundation
import Testing
import CoreStore
import CoreStoreSQL
import CoreStoreStorage
@testable import CoreStorePostgres

final class StatisticsParcel: CoreStoreObject {
    @Field.Stored("code") var code: Int = 0
    @Field.Stored("label") var label: String = ""
}

/// A commit that fills or empties a table is followed by `VACUUM (ANALYZE)` of that table, so
/// that the planner looks an indexed value up at once (and not only after autovacuum's next
/// round) and reads keys from indexes alone; small commits leave the statistics alone.
@Suite("PostgreSQL planner statistics after large commits", .serialized)
struct PostgresStatisticsTests {
    static let schema = CoreStoreSchema(
        modelVersion: "V1",
        entities: [Entity<StatisticsParcel>("StatisticsParcel", indexes: [[\StatisticsParcel.$code]])]
    )

    /// A stack on a new store in its own PostgreSQL schema, a separate connection to inspect
    /// it, and what removes the schema afterwards.
    private static func makeStore() throws -> (DataStack, PostgresConnection, schemaName: String, cleanUp: () -> Void) {
        let url = try PostgresTestServer.requireURL()
        let schemaName = "statistics_\(UInt32.random(in: 0...UInt32.max))"
        let stack = DataStack(Self.schema)
        try stack.addStorageAndWait(PostgresStore(url: url, schemaName: schemaName))
        let inspector = try PostgresConnection(connectionString: url, location: "test")
        return (stack, inspector, schemaName, { try? PostgresStore(url: url, schemaName: schemaName).erase() })
    }

    /// The row count the table's statistics hold (`-1`: never analyzed).
    private static func countedRows(_ connection: PostgresConnection, schemaName: String) throws -> Int64 {
        var counted: Int64 = .min
        try connection.statement("SELECT reltuples::bigint FROM pg_class WHERE oid = to_regclass($1)")
            .query([.text("\(schemaName.sqlIdentifier).\"StatisticsParcel\"")]) { counted = $0.int64(0) }
        return counted
    }

    private static func insert(_ codes: Range<Int>, into stack: DataStack) throws {
        try stack.perform(synchronous: { transaction in
            for code in codes {
                let parcel = transaction.create(Into<StatisticsParcel>())
                parcel.code = code
                parcel.label = "parcel \(code)"
            }
        })
    }

    @Test func aBulkLoadIsAnalyzedAndLookedUpThroughItsIndex() throws {
        let (stack, inspector, schemaName, cleanUp) = try Self.makeStore()
        defer { cleanUp() }
        try Self.insert(0..<3_000, into: stack)
        #expect(try Self.countedRows(inspector, schemaName: schemaName) == 3_000)
        // The shape of a `fetchOne` on the attribute: planned as a lookup in its index, not a
        // walk of the `_key` index that filters every row.
        var plan: [String] = []
        try inspector.statement("EXPLAIN SELECT * FROM \(schemaName.sqlIdentifier).\"StatisticsParcel\" t0 WHERE t0.\"code\" = 2500 ORDER BY t0.\"_key\" LIMIT 1")
            .query { plan.append($0.text(0) ?? "") }
        #expect(plan.contains { $0.contains("Index Cond") && $0.contains("code") }, "plan: \(plan.joined(separator: "\n"))")
        #expect(try stack.fetchOne(From<StatisticsParcel>().where(\.$code == 2500))?.label == "parcel 2500")
    }

    /// The refresh vacuums the table too, and indexes hold the rows' keys: once the vacuum has
    /// marked the table's pages all-visible (which a transaction older than the load, in another
    /// session, holds back), a read of keys by an indexed attribute is answered from the index
    /// alone.
    @Test func aFilledTableIsVacuumedAndItsIndexesHoldTheKeys() throws {
        let (stack, inspector, schemaName, cleanUp) = try Self.makeStore()
        defer { cleanUp() }
        try Self.insert(0..<3_000, into: stack)
        var definition = ""
        try inspector.statement("SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'StatisticsParcel.code'")
            .query([.text(schemaName)]) { definition = $0.text(0) ?? "" }
        #expect(definition.contains("INCLUDE (_key)"), "index: \(definition)")
        // The vacuum's report reaches the statistics views soon after it ends.
        var vacuumed = false
        for _ in 0..<50 where !vacuumed {
            try inspector.statement("SELECT last_vacuum IS NOT NULL FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'StatisticsParcel'")
                .query([.text(schemaName)]) { vacuumed = $0.text(0) == "t" }
            if !vacuumed { usleep(100_000) }
        }
        #expect(vacuumed, "the table filled by the commit was not vacuumed")
        #expect(try stack.fetchAll(From<StatisticsParcel>().where(\.$code >= 100 && \.$code < 200)).map(\.code) == Array(100..<200))
    }

    @Test func smallCommitsLeaveTheStatisticsToAutovacuum() throws {
        let (stack, inspector, schemaName, cleanUp) = try Self.makeStore()
        defer { cleanUp() }
        try Self.insert(0..<2_500, into: stack)
        #expect(try Self.countedRows(inspector, schemaName: schemaName) == 2_500)
        // 999 rows: below the minimum. 1,200 rows: less than half of the 2,500 counted.
        try Self.insert(2_500..<3_499, into: stack)
        try Self.insert(3_499..<4_699, into: stack)
        #expect(try Self.countedRows(inspector, schemaName: schemaName) == 2_500)
        // 1,300 more: over half of what the statistics count, so analyzed.
        try Self.insert(4_699..<5_999, into: stack)
        #expect(try Self.countedRows(inspector, schemaName: schemaName) == 5_999)
        #expect(try stack.fetchCount(From<StatisticsParcel>()) == 5_999)
    }

    @Test func emptyingMostOfATableIsAnalyzedToo() throws {
        let (stack, inspector, schemaName, cleanUp) = try Self.makeStore()
        defer { cleanUp() }
        try Self.insert(0..<4_000, into: stack)
        let deleted = try stack.perform(synchronous: { transaction in
            try transaction.deleteAll(From<StatisticsParcel>().where(\.$code >= 1_000))
        })
        #expect(deleted == 3_000)
        #expect(try Self.countedRows(inspector, schemaName: schemaName) == 1_000)
    }

    @Test func aMigrationAnalyzesTheTablesItFilled() async throws {
        let url = try PostgresTestServer.requireURL()
        // 500 notes: too few for the commit that wrote them to analyze the table.
        let schemaName = try PostgresMigrationTests.seededV1(url: url, count: 500)
        defer { try? PostgresStore(url: url, schemaName: schemaName).erase() }
        let inspector = try PostgresConnection(connectionString: url, location: "test")
        let counted = {
            var rows: Int64 = .min
            try inspector.statement("SELECT reltuples::bigint FROM pg_class WHERE oid = to_regclass($1)")
                .query([.text("\(schemaName.sqlIdentifier).\"Note\"")]) { rows = $0.int64(0) }
            return rows
        }
        #expect(try counted() != 500)
        let stack = DataStack(MigratingNoteV1.schema, MigratingNoteV2.schema)
        let store = PostgresStore(url: url, schemaName: schemaName, migrationMappingProviders: [PostgresMigrationTests.toV2(counting: CallCounter())])
        #expect(try await PostgresMigrationTests.add(store, to: stack))
        #expect(try counted() == 500)
        #expect(try stack.fetchCount(From<MigratingNoteV2.Note>().where(\.$length > 0)) == 500)
    }

    @Test func changedRowsAreCountedPerTable() throws {
        let storeSchema = StoreSchema(modelVersion: "S1", schemaHash: "statistics-1", entities: [
            EntityDescription(name: "StatisticsParcel", attributes: [
                AttributeDescription(name: "code", type: .integer, isOptional: false, isIndexed: true),
                AttributeDescription(name: "label", type: .string, isOptional: false),
            ]),
            EntityDescription(name: "StatisticsCrate", attributes: [
                AttributeDescription(name: "weight", type: .integer, isOptional: false),
            ]),
        ])
        let mapping = try SQLSchemaMapping(schema: storeSchema, dialect: PostgresDialect())
        let parcel = { (key: Int64) in Record(id: RecordID(entity: "StatisticsParcel", key: key), attributes: [.int(key), .string("")], relationships: []) }
        let crate = { (key: Int64) in Record(id: RecordID(entity: "StatisticsCrate", key: key), attributes: [.int(key)], relationships: []) }
        let changes = MergedChanges(
            // Runs of one entity, interrupted and taken up again, and an entity the schema lacks
            // (counted nowhere) between two runs of the same one.
            inserts: [parcel(1), parcel(2), crate(10), parcel(6), crate(11), crate(12)],
            deletes: [parcel(3), Record(id: RecordID(entity: "NotInTheSchema", key: 4), attributes: [], relationships: []), parcel(7)],
            unreadDeletes: [RecordID(entity: "StatisticsParcel", key: 5), RecordID(entity: "StatisticsCrate", key: 13)]
        )
        #expect(PostgresStatistics.changedRows(changes, mapping: mapping) == ["StatisticsParcel": 6, "StatisticsCrate": 4])
        #expect(PostgresStatistics.changedRows(MergedChanges(), mapping: mapping).isEmpty)
    }
}
