import Foundation
import CoreStoreSQL
import Testing
import CSQLite
import CoreStoreStorage
@testable import CoreStoreSQLite

/// Long `IN` lists bound as one JSON array (`json_each`): the same members, the same plan.
@Suite("SQLite IN lists as JSON")
struct SQLiteInListTests {
    static let schema = StoreSchema(modelVersion: "J1", schemaHash: "json-1", entities: [
        EntityDescription(name: "Item", attributes: [
            AttributeDescription(name: "code", type: .string, isOptional: false),
            AttributeDescription(name: "number", type: .integer, isOptional: true, isIndexed: true),
            AttributeDescription(name: "score", type: .double, isOptional: true, isIndexed: true),
            AttributeDescription(name: "price", type: .decimal, isOptional: true, isIndexed: true),
        ], uniqueConstraints: [["code"]]),
    ])

    static let trickyTexts = [
        "", "plain", "quote \" inside", "back\\slash", "\\\"", "tab\there", "line\nbreak", "\u{1}\u{1F}", "\u{7F}",
        "é", "e\u{301}", "😀", "日本", "\u{2028}", "u00000000000000000001", "[1,2]", "null", "{\"a\":1}", "\\u0041",
    ]

    /// An in-memory database with the schema's tables and indexes.
    private func connection() throws -> (SQLiteConnection, SQLSchemaMapping) {
        let mapping = try SQLSchemaMapping(schema: Self.schema, dialect: SQLiteDialect())
        let connection = try SQLiteConnection(path: ":memory:", flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, schema: Self.schema)
        for statement in mapping.creationSQL { try connection.execute(statement) }
        return (connection, mapping)
    }

    @Test("json_each reads back exactly the integers and texts that were encoded")
    func jsonRoundTrip() throws {
        let members: [SQLValue] = Self.trickyTexts.map { .text($0) } + [Int64.min, -1, 0, 1, Int64.max, (1 << 53) + 1].map { .integer($0) }
        let json = try #require(SQLiteJSONArray.encode(members))
        let (connection, _) = try connection()
        var read: [SQLValue] = []
        try connection.statement("SELECT value FROM json_each(?1) ORDER BY key").query([.text(json)]) { row in read.append(row.column(0)) }
        #expect(read == members)
    }

    @Test("Reals, blobs, NULL and texts with NUL have no JSON form")
    func unencodableMembers() {
        #expect(SQLiteJSONArray.encode([.integer(1), .real(1.5)]) == nil)
        #expect(SQLiteJSONArray.encode([.blob(Data([1]))]) == nil)
        #expect(SQLiteJSONArray.encode([.null]) == nil)
        #expect(SQLiteJSONArray.encode([.text("a\0b")]) == nil)
        #expect(SQLiteJSONArray.encode([.text("a"), .integer(-2)]) == "[\"a\",-2]")
    }

    /// The SQL and parameters of a fetch of `Item` with `key IN members`.
    private func select(_ key: String, _ members: [Value], mapping: SQLSchemaMapping) throws -> (sql: String, parameters: [SQLValue]) {
        var builder = SQLQueryBuilder(mapping: mapping)
        let request = FetchRequest(entity: "Item", predicate: .comparison(Comparison([key], .in, .list(members))))
        let sql = try builder.select("t0.\"_key\"", request)
        return (sql, builder.parameters)
    }

    @Test("Only long lists of integers and NUL-free texts become one JSON parameter")
    func whenJSONIsUsed() throws {
        let mapping = try SQLSchemaMapping(schema: Self.schema, dialect: SQLiteDialect())
        let long = (0..<501).map { Value.string("c\($0)") }
        let json = try select("code", long, mapping: mapping)
        #expect(json.sql.contains("json_each") && json.parameters.count == 1)
        let short = try select("code", Array(long.prefix(500)), mapping: mapping)
        #expect(!short.sql.contains("json_each") && short.parameters.count == 500)
        let withNUL = try select("code", long + [.string("x\0")], mapping: mapping)
        #expect(!withNUL.sql.contains("json_each") && withNUL.parameters.count == 502)
        let withNil = try select("number", (0..<600).map { Value.int(Int64($0)) } + [.null], mapping: mapping)
        #expect(withNil.sql.contains("json_each") && withNil.sql.contains("IS NULL") && withNil.parameters.count == 1)
        let reals = try select("score", (0..<600).map { Value.double(Double($0) + 0.5) }, mapping: mapping)
        #expect(!reals.sql.contains("json_each"))
    }

    @Test("The JSON list still searches the column's index", arguments: ["code", "number"])
    func planUsesTheIndex(key: String) throws {
        let (connection, mapping) = try connection()
        let members: [Value] = (0..<2_000).map { key == "code" ? .string("c\($0)") : .int(Int64($0)) }
        let (sql, parameters) = try select(key, members, mapping: mapping)
        #expect(sql.contains("json_each"))
        var details: [String] = []
        try connection.statement("EXPLAIN QUERY PLAN " + sql).query(parameters) { row in details.append(row.text(3) ?? "") }
        let plan = details.joined(separator: "\n")
        #expect(plan.contains("SEARCH t0 USING") && plan.contains("INDEX") && plan.contains("(\(key)=?)"), "\(plan)")
        #expect(!plan.contains("SCAN t0"), "\(plan)")
    }

    @Test("A JSON list finds exactly what one parameter per member finds")
    func sameRowsEitherWay() throws {
        let (connection, mapping) = try connection()
        let insert = try connection.statement("INSERT INTO \"Item\" (\"_key\", \"_entity\", \"code\", \"number\", \"price\") VALUES (?1, 'Item', ?2, ?3, ?4)")
        let prices = ["2.5", "-0.1", "10", "0"].compactMap { Decimal(string: $0) }
        for (i, text) in Self.trickyTexts.enumerated() {
            let price = SQLiteValueCodec.encode(.decimal(prices[i % prices.count]), as: .decimal)
            try insert.execute([.integer(Int64(i + 1)), .text(text), i % 3 == 0 ? .null : .integer(Int64(i) * 1_000_003), price])
        }
        func keys(_ key: String, _ members: [Value]) throws -> [Int64] {
            let (sql, parameters) = try select(key, members, mapping: mapping)
            var keys: [Int64] = []
            try connection.statement(sql).query(parameters) { row in keys.append(row.int64(0)) }
            return keys
        }
        let fillers = (0..<600).map { Value.string("filler \($0)") }
        for text in Self.trickyTexts {
            let found = try keys("code", [.string(text)])
            #expect(found.count == 1)
            #expect(try keys("code", fillers + [.string(text)]) == found, "\(text.debugDescription)")
        }
        // Every stored number, and nil: the long list through JSON, the short one bound member by member.
        let numbers = (0..<700).map { Value.int(Int64($0) * 1_000_003) } + [.null]
        let stored = Array(numbers.prefix(Self.trickyTexts.count)) + [.null]
        #expect(try keys("number", numbers) == keys("number", stored))
        #expect(try keys("number", numbers).count == Self.trickyTexts.count)
        // Decimals compare numerically through the column's collation either way.
        let decimalFillers = (0..<600).map { Value.decimal(Decimal(1_000 + $0)) }
        for price in prices + [Decimal(string: "2.50") ?? 0, Decimal(7)] {
            let found = try keys("price", [.decimal(price)])
            #expect(try keys("price", decimalFillers + [.decimal(price)]) == found, "\(price)")
        }
        #expect(try keys("price", decimalFillers + prices.map { .decimal($0) }).count == Self.trickyTexts.count)
    }
}
