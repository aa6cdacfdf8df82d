import Foundation
import Testing
import CoreStoreStorage
@testable import CoreStoreKeyValue

/// The minimum and maximum of indexed attributes over all of an entity's records come from the
/// ends of their indexes and read no record; their values are the reference evaluator's, and a
/// value of another case at an end of an index makes the request read records instead.
@Suite("Index-only minimum and maximum")
struct IndexOnlyExtremesTests {
    private static func request(_ terms: [(AggregateFunction, String)], entity: String = "Person", predicate: RecordPredicate? = nil) -> AggregateRequest {
        AggregateRequest(entity: entity, predicate: predicate, terms: terms.map { AggregateTerm($0.0, $0.1) })
    }

    /// Whether `request` takes the index-only path.
    private static func readsIndexOnly(_ request: AggregateRequest) throws -> Bool {
        let (layout, plan) = try KV.plan(of: request)
        return IndexOnlyExtremes(request, plan: plan, layout: layout) != nil
    }

    private static func expected(_ request: AggregateRequest, in storage: KeyValueStorage<MemoryKeyValueStore>) throws -> [[Value]] {
        let records = try storage.read { try $0.fetch(FetchRequest(entity: request.entity)) }.records
        return try AggregateEvaluator(schema: KV.schema).rows(request, records: records)
    }

    @Test("Minimum and maximum of indexed integers, strings and booleans, without a predicate or with one their index answers exactly", arguments: [
        request([(.minimum, "age")]),
        request([(.maximum, "age")], predicate: .comparison(Comparison("age", .equal, .int(3)))),
        request([(.maximum, "age"), (.minimum, "name"), (.maximum, "name")]),
        request([(.maximum, "breed")], entity: "Dog"),
    ])
    func indexOnlyRequests(_ request: AggregateRequest) throws {
        #expect(try Self.readsIndexOnly(request))
    }

    @Test("A predicate of another index or not exact, another function, a double, an unindexed attribute or a unique index read records", arguments: [
        request([(.maximum, "age")], predicate: .comparison(Comparison("name", .equal, .string("P1")))),
        request([(.maximum, "age")], predicate: .comparison(Comparison("age", .greater, .int(1)))),
        request([(.maximum, "age"), (.maximum, "name")], predicate: .comparison(Comparison("age", .equal, .int(3)))),
        request([(.maximum, "age"), (.count, "age")]),
        request([(.maximum, "score")]),
        request([(.maximum, "email")]),
        request([(.maximum, "tag")], entity: "Pet"),
    ])
    func recordReadingRequests(_ request: AggregateRequest) throws {
        #expect(try !Self.readsIndexOnly(request))
    }

    @Test("The values are the evaluator's and no record is read")
    func valuesAreTheEvaluators() throws {
        let engine = MemoryKeyValueStore()
        let storage = try KV.openStore(engine)
        let request = Self.request([(.minimum, "age"), (.maximum, "age"), (.minimum, "name"), (.maximum, "name")])
        _ = try storage.write(ChangeSet(inserts: KV.fortyPeople()))
        let expected = try Self.expected(request, in: storage)
        #expect(expected == [[.int(0), .int(4), .string("P0"), .string("P6")]])
        let key = KeyValueLayout(schema: KV.schema).recordKey(entity: "Person", key: 3)
        try engine.write { try $0.put(key, [2, 0, 0, 0, 0]) }
        #expect(try storage.read { try $0.aggregate(request, schema: KV.schema) } == expected)
        #expect(throws: StorageError.self) {
            try storage.read { try $0.aggregate(Self.request([(.maximum, "score")]), schema: KV.schema) }
        }
    }

    @Test("Within an exact plan's ranges, nil left out", arguments: [
        (RecordPredicate.comparison(Comparison(["age"], .in, .list([.int(1), .int(3), .null]))), [Value.int(1), .int(3)]),
        (.comparison(Comparison(["age"], .between, .list([.int(2), .int(3)]))), [.int(2), .int(3)]),
        (.comparison(Comparison(["age"], .in, .list([.null]))), [.null, .null]),
        (.comparison(Comparison("age", .equal, .int(9))), [.null, .null]),
    ])
    func withinExactRanges(_ predicate: RecordPredicate, _ extremes: [Value]) throws {
        let engine = MemoryKeyValueStore()
        let storage = try KV.openStore(engine)
        _ = try storage.write(ChangeSet(inserts: KV.fortyPeople()))
        let request = Self.request([(.minimum, "age"), (.maximum, "age")], predicate: predicate)
        #expect(try Self.readsIndexOnly(request))
        let records = try storage.read { try $0.fetch(FetchRequest(entity: "Person", predicate: predicate)) }.records
        #expect(try AggregateEvaluator(schema: KV.schema).rows(request, records: records) == [extremes])
        let key = KeyValueLayout(schema: KV.schema).recordKey(entity: "Person", key: 3)
        try engine.write { try $0.put(key, [2, 0, 0, 0, 0]) }
        #expect(try storage.read { try $0.aggregate(request, schema: KV.schema) } == [extremes])
    }

    @Test("Over no records, or only nil values, both are nil")
    func noValues() throws {
        let storage = try KV.openStore()
        let request = Self.request([(.minimum, "age"), (.maximum, "age")])
        #expect(try storage.read { try $0.aggregate(request, schema: KV.schema) } == [[.null, .null]])
        _ = try storage.write(ChangeSet(inserts: [KV.person(-1, "A"), KV.person(-2, "B")]))
        #expect(try storage.read { try $0.aggregate(request, schema: KV.schema) } == [[.null, .null]])
    }

    @Test("A decimal or a boolean among an integer attribute's values (encoded outside the integers) makes the request read records", arguments: [
        Value.decimal(Decimal(string: "2.5")!), .decimal(1_000), .bool(true), .double(-7),
    ])
    func otherCasesReadRecords(_ odd: Value) throws {
        let storage = try KV.openStore()
        var people = KV.fortyPeople()
        people[0].attributes[1] = odd
        _ = try storage.write(ChangeSet(inserts: people))
        let request = Self.request([(.minimum, "age"), (.maximum, "age")])
        let rows = try storage.read { try $0.aggregate(request, schema: KV.schema) }
        #expect(rows == (try Self.expected(request, in: storage)))
    }
}
