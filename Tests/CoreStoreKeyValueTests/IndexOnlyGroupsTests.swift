import Foundation
import Testing
import CoreStoreStorage
@testable import CoreStoreKeyValue

/// Requests grouped by an indexed attribute that ask only about it are answered from the
/// index's entries and read no record; their rows are the reference evaluator's. Everything
/// else still reads records.
@Suite("Index-only groups")
struct IndexOnlyGroupsTests {
    private static func compare(_ key: String, _ op: ComparisonOperator, _ value: Value) -> RecordPredicate {
        .comparison(Comparison(key, op, value))
    }

    private static func request(_ key: String, _ functions: [AggregateFunction], entity: String = "Person", includesSubentities: Bool = true,
                                predicate: RecordPredicate? = nil, ascending: Bool = true, limit: Int? = nil, offset: Int = 0) -> AggregateRequest {
        AggregateRequest(entity: entity, includesSubentities: includesSubentities, predicate: predicate,
                         terms: functions.map { AggregateTerm($0, key) }, groupBy: [key],
                         sortDescriptors: [RecordSortDescriptor(key: key, ascending: ascending)], limit: limit, offset: offset)
    }

    /// Whether `request` takes the index-only path.
    private static func readsIndexOnly(_ request: AggregateRequest) throws -> Bool {
        let (layout, plan) = try KV.plan(of: request)
        return IndexOnlyGroups(request, plan: plan, layout: layout) != nil
    }

    @Test("The group key alone, of an index with entries of exactly the selected records", arguments: [
        request("age", [.value, .count, .minimum, .maximum]),
        request("age", [.count], ascending: false),
        request("name", [.value, .count]),
        request("age", [.value, .count], predicate: compare("age", .equal, .int(3))),
        request("age", [.value, .count], predicate: .comparison(Comparison(["age"], .in, .list([.int(1), .int(4), .null])))),
        request("breed", [.value, .count], entity: "Dog"),
    ])
    func indexOnlyRequests(_ request: AggregateRequest) throws {
        #expect(try Self.readsIndexOnly(request))
    }

    @Test("Other attributes, other indexes, unique indexes and values whose encoding is not their group's read records", arguments: [
        request("age", [.value, .count]).withTerm(AggregateTerm(.count, "score")),
        request("age", [.sum]),
        request("score", [.value, .count]),
        request("age", [.value, .count], predicate: compare("name", .equal, .string("P1"))),
        request("age", [.value, .count], predicate: compare("age", .notEqual, .int(3))),
        request("tag", [.value, .count], entity: "Pet"),
        request("name", [.value, .count], entity: "Pet"),
    ])
    func recordReadingRequests(_ request: AggregateRequest) throws {
        #expect(try !Self.readsIndexOnly(request))
    }

    @Test("The rows are the evaluator's, in either order and window, and no record is read", arguments: [
        request("age", [.value, .count, .minimum, .maximum]),
        request("age", [.value, .count], ascending: false, limit: 2, offset: 1),
        request("name", [.count, .value], ascending: false),
        request("age", [.value, .count, .maximum], predicate: .comparison(Comparison(["age"], .in, .list([.int(1), .int(4), .null])))),
    ])
    func rowsAreTheEvaluators(_ request: AggregateRequest) throws {
        let engine = MemoryKeyValueStore()
        let storage = try KV.openStore(engine)
        _ = try storage.write(ChangeSet(inserts: KV.fortyPeople()))
        let records = try storage.read { try $0.fetch(FetchRequest(entity: "Person", predicate: request.predicate)) }.records
        let expected = try AggregateEvaluator(schema: KV.schema).rows(request, records: records)
        #expect(!expected.isEmpty)
        #expect(try storage.read { try $0.aggregate(request, schema: KV.schema) } == expected)
        // With a record damaged, the rows come from the entries alone; a request that reads
        // records meets the damage.
        let key = KeyValueLayout(schema: KV.schema).recordKey(entity: "Person", key: 3)
        try engine.write { try $0.put(key, [2, 0, 0, 0, 0]) }
        #expect(try storage.read { try $0.aggregate(request, schema: KV.schema) } == expected)
        #expect(throws: StorageError.self) {
            try storage.read { try $0.aggregate(Self.request("age", [.sum]), schema: KV.schema) }
        }
    }

    @Test("A decimal among an integer attribute's values (which can share a group with an integer) makes the request read records")
    func decimalGroupKeysReadRecords() throws {
        let storage = try KV.openStore()
        var people = KV.fortyPeople()
        // 3 as a decimal groups with the integer 3 in storage order, but is encoded apart.
        people[0].attributes[1] = .decimal(3)
        _ = try storage.write(ChangeSet(inserts: people))
        let request = Self.request("age", [.value, .count])
        let records = try storage.read { try $0.fetch(FetchRequest(entity: "Person")) }.records
        let expected = try AggregateEvaluator(schema: KV.schema).rows(request, records: records)
        let rows = try storage.read { try $0.aggregate(request, schema: KV.schema) }
        #expect(rows == expected)
        #expect(rows.count == 6, "ages 0–4 and nil: \(rows)")
    }

    @Test("Over no records there are no groups")
    func noRecords() throws {
        let storage = try KV.openStore()
        #expect(try storage.read { try $0.aggregate(Self.request("age", [.value, .count]), schema: KV.schema) } == [])
    }
}

private extension AggregateRequest {
    /// This request with `term` added.
    func withTerm(_ term: AggregateTerm) -> AggregateRequest {
        var request = self
        request.terms.append(term)
        return request
    }
}
