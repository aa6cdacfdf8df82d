import Foundation
import Testing
import CoreStoreStorage
import CoreStoreInMemory

/// Items of every attribute type, with parts to count.
private enum Items {
    static let schema = StoreSchema(modelVersion: "A1", schemaHash: "hash-a1", entities: [
        EntityDescription(name: "Item", attributes: [
            AttributeDescription(name: "kind", type: .string, isOptional: false),
            AttributeDescription(name: "count", type: .integer, isOptional: true),
            AttributeDescription(name: "price", type: .double, isOptional: true),
            AttributeDescription(name: "amount", type: .decimal, isOptional: true),
            AttributeDescription(name: "flag", type: .bool, isOptional: false),
            AttributeDescription(name: "created", type: .date, isOptional: true),
        ], relationships: [
            RelationshipDescription(name: "parts", kind: .toManyUnordered, destinationEntity: "Part", inverseName: "item"),
        ]),
        EntityDescription(name: "Part", attributes: [], relationships: [
            RelationshipDescription(name: "item", kind: .toOne, destinationEntity: "Item", inverseName: "parts"),
        ]),
    ])

    static func item(_ key: Int64, _ kind: String, count: Int64?, price: Double?, amount: Decimal?, flag: Bool, parts: [Int64] = []) -> Record {
        Record(
            id: RecordID(entity: "Item", key: key),
            attributes: [
                .string(kind), count.map(Value.int) ?? .null, price.map(Value.double) ?? .null,
                amount.map(Value.decimal) ?? .null, .bool(flag), .date(Date(timeIntervalSince1970: Double(key))),
            ],
            relationships: [parts.map { RecordID(entity: "Part", key: $0) }]
        )
    }

    /// Five items in three kinds; item 3 has no count, price or amount.
    static let records: [Record] = [
        item(1, "a", count: 3, price: 1.5, amount: Decimal(string: "1.25"), flag: true, parts: [10, 11]),
        item(2, "b", count: 10, price: 2.25, amount: Decimal(string: "2.5"), flag: false),
        item(3, "a", count: nil, price: nil, amount: nil, flag: true, parts: [12]),
        item(4, "b", count: 7, price: 0.75, amount: Decimal(string: "0.25"), flag: true),
        item(5, "c", count: 1, price: 4.0, amount: 10, flag: false),
    ]

    static func request(_ terms: [AggregateTerm], groupBy: [String] = [], sort: [RecordSortDescriptor] = [], limit: Int? = nil, offset: Int = 0) -> AggregateRequest {
        AggregateRequest(entity: "Item", terms: terms, groupBy: groupBy, sortDescriptors: sort, limit: limit, offset: offset)
    }

    static func rows(_ request: AggregateRequest, _ records: [Record] = records) throws -> [[Value]] {
        try AggregateEvaluator(schema: schema).rows(request, records: records.reversed())
    }
}

private func term(_ function: AggregateFunction, _ key: String) -> AggregateTerm {
    AggregateTerm(function, key)
}

private func expectInvalid(_ request: AggregateRequest, mentioning text: String, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        _ = try Items.rows(request, [])
        Issue.record("expected \(request.terms) to be rejected", sourceLocation: sourceLocation)
    } catch let error as StorageError {
        #expect(error.description.contains(text), "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
    }
}

@Suite("AggregateEvaluator")
struct AggregateEvaluatorTests {
    @Test func everyAggregateOfAnIntegerAttributeIgnoresNil() throws {
        let rows = try Items.rows(Items.request([
            term(.count, "count"), term(.sum, "count"), term(.average, "count"), term(.minimum, "count"), term(.maximum, "count"),
        ]))
        #expect(rows == [[.int(4), .int(21), .double(5.25), .int(1), .int(10)]])
    }

    @Test func doublesSumAsDoublesAndDecimalsAsDecimals() throws {
        let doubles = try Items.rows(Items.request([
            term(.count, "price"), term(.sum, "price"), term(.average, "price"), term(.minimum, "price"), term(.maximum, "price"),
        ]))
        #expect(doubles == [[.int(4), .double(8.5), .double(2.125), .double(0.75), .double(4.0)]])
        let decimals = try Items.rows(Items.request([
            term(.sum, "amount"), term(.average, "amount"), term(.minimum, "amount"), term(.maximum, "amount"),
        ]))
        #expect(decimals == [[.decimal(14), .decimal(Decimal(string: "3.5") ?? 0), .decimal(Decimal(string: "0.25") ?? 0), .decimal(10)]])
    }

    @Test func booleansCountAsZeroAndOne() throws {
        let rows = try Items.rows(Items.request([term(.sum, "flag"), term(.average, "flag"), term(.minimum, "flag"), term(.maximum, "flag")]))
        #expect(rows == [[.int(3), .double(0.6), .bool(false), .bool(true)]])
    }

    @Test func minimumAndMaximumOfStringsAndDatesUseStorageOrder() throws {
        let rows = try Items.rows(Items.request([term(.minimum, "kind"), term(.maximum, "kind"), term(.maximum, "created"), term(.count, "kind")]))
        #expect(rows == [[.string("a"), .string("c"), .date(Date(timeIntervalSince1970: 5)), .int(5)]])
    }

    @Test func aggregatesOverNoRecordsGiveOneRowOfZeroAndNil() throws {
        let rows = try Items.rows(Items.request([
            term(.count, "count"), term(.sum, "count"), term(.average, "price"), term(.minimum, "kind"), term(.maximum, "amount"),
        ]), [])
        #expect(rows == [[.int(0), .null, .null, .null, .null]])
        let onlyNil = try Items.rows(Items.request([term(.count, "count"), term(.sum, "count")]), [Items.records[2]])
        #expect(onlyNil == [[.int(0), .null]])
        #expect(try Items.rows(Items.request([term(.count, "count")], groupBy: ["kind"]), []) == [], "no groups, no rows")
    }

    @Test func groupingByOneKeyOrdersGroupsAscending() throws {
        let rows = try Items.rows(Items.request([
            term(.value, "kind"), term(.count, "count"), term(.sum, "count"), term(.average, "count"), term(.maximum, "count"),
        ], groupBy: ["kind"]))
        #expect(rows == [
            [.string("a"), .int(1), .int(3), .double(3), .int(3)],
            [.string("b"), .int(2), .int(17), .double(8.5), .int(10)],
            [.string("c"), .int(1), .int(1), .double(1), .int(1)],
        ])
    }

    @Test func groupsFollowSortDescriptorsThenRemainingKeysAndWindow() throws {
        let descending = try Items.rows(Items.request([term(.value, "kind"), term(.count, "kind")], groupBy: ["kind"], sort: [RecordSortDescriptor(key: "kind", ascending: false)]))
        #expect(descending == [[.string("c"), .int(1)], [.string("b"), .int(2)], [.string("a"), .int(2)]])

        let two = Items.request([term(.value, "kind"), term(.value, "flag"), term(.count, "kind")], groupBy: ["kind", "flag"])
        #expect(try Items.rows(two) == [
            [.string("a"), .bool(true), .int(2)], [.string("b"), .bool(false), .int(1)],
            [.string("b"), .bool(true), .int(1)], [.string("c"), .bool(false), .int(1)],
        ])
        var byFlag = two
        byFlag.sortDescriptors = [RecordSortDescriptor(key: "flag", ascending: false)]
        #expect(try Items.rows(byFlag) == [
            [.string("a"), .bool(true), .int(2)], [.string("b"), .bool(true), .int(1)],
            [.string("b"), .bool(false), .int(1)], [.string("c"), .bool(false), .int(1)],
        ])
        byFlag.offset = 1
        byFlag.limit = 2
        #expect(try Items.rows(byFlag).map { $0[2] } == [.int(1), .int(1)])
        #expect(try Items.rows(byFlag).map { $0[1] } == [.bool(true), .bool(false)])
    }

    @Test func groupByWithoutSelectingTheKeyStillGroups() throws {
        #expect(try Items.rows(Items.request([term(.sum, "count")], groupBy: ["kind"])) == [[.int(3)], [.int(17)], [.int(1)]])
    }

    @Test func ungroupedRequestsYieldOneRowPerRecordInFetchOrder() throws {
        let plain = try Items.rows(Items.request([term(.value, "kind"), term(.count, "parts")]))
        #expect(plain == [[.string("a"), .int(2)], [.string("b"), .int(0)], [.string("a"), .int(1)], [.string("b"), .int(0)], [.string("c"), .int(0)]])
        let sorted = try Items.rows(Items.request([term(.value, "count")], sort: [RecordSortDescriptor(key: "count", ascending: false)]))
        #expect(sorted == [[.int(10)], [.int(7)], [.int(3)], [.int(1)], [.null]], "nil last when descending")
        let window = try Items.rows(Items.request([term(.value, "count")], sort: [RecordSortDescriptor(key: "count", ascending: false)], limit: 2, offset: 1))
        #expect(window == [[.int(7)], [.int(3)]])
        let evaluator = AggregateEvaluator(schema: Items.schema)
        #expect(try evaluator.isGrouped(Items.request([term(.count, "parts")])) == false)
        #expect(try evaluator.isGrouped(Items.request([term(.count, "kind")])) == true)
        let projected = try evaluator.projectedRows(Items.request([term(.value, "kind")]), orderedRecords: [Items.records[4], Items.records[0]])
        #expect(projected == [[.string("c")], [.string("a")]])
    }

    @Test func minimumAndMaximumSkipNaNButCountKeepsIt() throws {
        let records = [
            Items.item(1, "a", count: nil, price: .nan, amount: nil, flag: false),
            Items.item(2, "a", count: nil, price: 1.0, amount: nil, flag: false),
            Items.item(3, "a", count: nil, price: nil, amount: nil, flag: false),
        ]
        let rows = try Items.rows(Items.request([term(.minimum, "price"), term(.maximum, "price"), term(.count, "price")]), records)
        #expect(rows == [[.double(1.0), .double(1.0), .int(2)]])
    }

    @Test func equalNumbersShareAGroupNamedByTheLowestKey() throws {
        let records = [
            Items.item(2, "a", count: nil, price: 0.0, amount: nil, flag: false),
            Items.item(1, "a", count: nil, price: -0.0, amount: nil, flag: false),
        ]
        let rows = try Items.rows(Items.request([term(.value, "price"), term(.count, "price")], groupBy: ["price"]), records)
        #expect(rows == [[.double(-0.0), .int(2)]])
    }

    @Test func integerSumsAreExactAndOverflowThrows() throws {
        let big = [
            Items.item(1, "a", count: .max - 1, price: nil, amount: nil, flag: false),
            Items.item(2, "a", count: 1, price: nil, amount: nil, flag: false),
        ]
        #expect(try Items.rows(Items.request([term(.sum, "count")]), big) == [[.int(.max)]])
        let over = big + [Items.item(3, "a", count: 1, price: nil, amount: nil, flag: false)]
        #expect(throws: StorageError.invalidRequest("sum overflows: the sum of 'count' does not fit in a 64-bit integer")) {
            try Items.rows(Items.request([term(.sum, "count")]), over)
        }
        let average = try Items.rows(Items.request([term(.average, "count")]), over)
        guard case .double(let mean)? = average.first?.first else { Issue.record("\(average)"); return }
        #expect(abs(mean - 3_074_457_345_618_258_602.67) < 1e4, "the average of a sum beyond 64 bits is still computed")
    }

    @Test func badRequestsThrowBeforeReadingRecords() {
        expectInvalid(Items.request([term(.sum, "kind")]), mentioning: "'kind'")
        expectInvalid(Items.request([term(.average, "created")]), mentioning: "date attribute")
        expectInvalid(Items.request([term(.value, "kind"), term(.count, "kind")]), mentioning: "must be one of the groupBy keys")
        expectInvalid(Items.request([term(.value, "kind")], groupBy: ["kind"], sort: [RecordSortDescriptor(key: "count", ascending: true)]), mentioning: "'count' is not one")
        expectInvalid(Items.request([term(.count, "parts")], groupBy: ["kind"]), mentioning: "relationship 'parts'")
        expectInvalid(Items.request([term(.sum, "parts")]), mentioning: "only the count")
        expectInvalid(Items.request([term(.value, "kind")], groupBy: ["parts"]), mentioning: "relationship")
        expectInvalid(Items.request([term(.value, "colour")]), mentioning: "'colour'")
        expectInvalid(AggregateRequest(entity: "Nope", terms: []), mentioning: "'Nope'")
    }

    @Test func inMemoryStoreAndTheDefaultImplementationAgree() throws {
        let store = InMemoryStore()
        _ = try store.open(schema: Items.schema)
        _ = try store.write(ChangeSet(inserts: Items.records.map { record in
            var record = record
            record.relationships = [[]]
            return record
        }))
        let requests = [
            Items.request([term(.value, "kind"), term(.sum, "count"), term(.average, "price")], groupBy: ["kind"]),
            Items.request([term(.value, "kind"), term(.count, "parts")], sort: [RecordSortDescriptor(key: "price", ascending: true)], limit: 3),
            AggregateRequest(entity: "Item", predicate: .comparison(Comparison("flag", .equal, .bool(true))), terms: [term(.count, "kind"), term(.maximum, "count")]),
        ]
        for request in requests {
            let native = try store.read { try $0.aggregate(request, schema: Items.schema) }
            let fallback = try store.read { try FetchOnlyReader(inner: $0).aggregate(request, schema: Items.schema) }
            #expect(native == fallback)
            #expect(native == (try Items.rows(request, try store.read { try $0.fetch(FetchRequest(entity: "Item", predicate: request.predicate)).records })))
        }
        let flagged = try store.read { try $0.aggregate(requests[2], schema: Items.schema) }
        #expect(flagged == [[.int(3), .int(7)]])
    }

    @Test func subEntitiesAreAggregatedWithTheirParent() throws {
        let store = try Fixtures.store()
        _ = try store.write(ChangeSet(inserts: [Fixtures.dog(-1, "Rex", weight: 12.5), Fixtures.cat(-2, "Tom"), Fixtures.dog(-3, "Ace")]))
        let names = AggregateRequest(entity: "Animal", terms: [AggregateTerm(.value, "name")], sortDescriptors: [RecordSortDescriptor(key: "name", ascending: true)])
        #expect(try store.read { try $0.aggregate(names, schema: Fixtures.schema) } == [[.string("Ace")], [.string("Rex")], [.string("Tom")]])
        var own = names
        own.includesSubentities = false
        #expect(try store.read { try $0.aggregate(own, schema: Fixtures.schema) } == [])
        let weights = AggregateRequest(entity: "Dog", terms: [AggregateTerm(.count, "weight"), AggregateTerm(.sum, "weight")])
        #expect(try store.read { try $0.aggregate(weights, schema: Fixtures.schema) } == [[.int(1), .double(12.5)]])
    }
}

/// A reader that only fetches, and leaves every stage to the core: exercises the default
/// `aggregate` implementation.
private struct FetchOnlyReader: StorageReader {
    let inner: any StorageReader

    func records(_ ids: [RecordID]) throws -> [Record?] { try inner.records(ids) }

    func fetch(_ request: FetchRequest) throws -> FetchResult {
        FetchResult(records: try inner.fetch(FetchRequest(entity: request.entity, includesSubentities: request.includesSubentities)).records, pending: .all)
    }

    func count(_ request: FetchRequest) throws -> Int { try inner.count(request) }
}
