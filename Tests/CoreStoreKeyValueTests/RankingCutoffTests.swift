import Foundation
import Testing
import CoreStoreStorage
@testable import CoreStoreKeyValue

/// A limited sort on an attribute no index orders is ranked while the records are scanned, and
/// the scan skips the records that rank after the kept ones by their first sort value
/// (``RankingCutoff``). The answers are the reference evaluator's, with ties at the cutoff,
/// missing values, NaN and records of two entities in one scan.
@Suite("Limited sorts that skip what ranks after the kept records")
struct RankingCutoffTests {
    /// Pets and dogs (one hierarchy, one scan) whose weights repeat, with some missing and
    /// some NaN; people whose scores repeat.
    private static func records() -> [Record] {
        var records: [Record] = []
        for n in 1...240 {
            let weight: Value = n % 17 == 0 ? .null : (n % 23 == 0 ? .double(.nan) : .double(Double(n * 7 % 13) / 2))
            let id = RecordID(entity: n % 3 == 0 ? "Dog" : "Pet", key: -Int64(n))
            var attributes: [Value] = [.string("pet\(n % 11)"), .int(Int64(n)), weight]
            if id.entity == "Dog" { attributes.append(.string("breed\(n % 4)")) }
            records.append(Record(id: id, attributes: attributes, relationships: [[]]))
        }
        for n in 1...150 {
            records.append(KV.person(-1_000 - Int64(n), "P\(n % 9)", age: Int64(n % 6), score: n % 19 == 0 ? nil : Double(n % 8)))
        }
        return records
    }

    static let requests: [FetchRequest] = [
        FetchRequest(entity: "Pet", sortDescriptors: [RecordSortDescriptor(key: "weight", ascending: false)], limit: 3),
        FetchRequest(entity: "Pet", sortDescriptors: [RecordSortDescriptor(key: "weight", ascending: true)], limit: 5),
        FetchRequest(entity: "Pet", sortDescriptors: [RecordSortDescriptor(key: "weight", ascending: false),
                                                      RecordSortDescriptor(key: "name", ascending: false)], limit: 7, offset: 2),
        FetchRequest(entity: "Pet", sortDescriptors: [RecordSortDescriptor(key: "tag", ascending: false)], limit: 4),
        FetchRequest(entity: "Dog", sortDescriptors: [RecordSortDescriptor(key: "weight", ascending: true)], limit: 6),
        FetchRequest(entity: "Pet", predicate: .comparison(Comparison("weight", .greaterOrEqual, .double(2))),
                     sortDescriptors: [RecordSortDescriptor(key: "weight", ascending: false)], limit: 9),
        FetchRequest(entity: "Person", predicate: .comparison(Comparison("age", .greaterOrEqual, .int(1))),
                     sortDescriptors: [RecordSortDescriptor(key: "score", ascending: false)], limit: 5),
        FetchRequest(entity: "Person", predicate: .comparison(Comparison("age", .greaterOrEqual, .int(0))),
                     sortDescriptors: [RecordSortDescriptor(key: "email", ascending: true), RecordSortDescriptor(key: "score", ascending: true)], limit: 8),
        // A range of the first sort key: the range and the cutoff folded into one interval
        // (ScanRangeFold), for both directions, strict and inclusive bounds, ties at the bounds
        // and at the cutoff, one value, none, and two entities in one scan.
        FetchRequest(entity: "Pet", predicate: weightRange(.greaterOrEqual, 1.5, .lessOrEqual, 4.5),
                     sortDescriptors: [RecordSortDescriptor(key: "weight", ascending: false)], limit: 6),
        FetchRequest(entity: "Pet", predicate: weightRange(.greater, 1.5, .less, 4.5),
                     sortDescriptors: [RecordSortDescriptor(key: "weight", ascending: true)], limit: 5, offset: 1),
        FetchRequest(entity: "Pet", predicate: weightRange(.lessOrEqual, 6, .greater, 0),
                     sortDescriptors: [RecordSortDescriptor(key: "weight", ascending: false),
                                       RecordSortDescriptor(key: "name", ascending: true)], limit: 11),
        FetchRequest(entity: "Dog", predicate: weightRange(.greaterOrEqual, 0, .lessOrEqual, 6),
                     sortDescriptors: [RecordSortDescriptor(key: "weight", ascending: true)], limit: 4),
        FetchRequest(entity: "Dog", predicate: weightRange(.greaterOrEqual, 1, .lessOrEqual, 5),
                     sortDescriptors: [RecordSortDescriptor(key: "weight", ascending: false),
                                       RecordSortDescriptor(key: "name", ascending: true)], limit: 5),
        FetchRequest(entity: "Dog", predicate: weightRange(.greater, 0.5, .less, 5.5),
                     sortDescriptors: [RecordSortDescriptor(key: "weight", ascending: true),
                                       RecordSortDescriptor(key: "name", ascending: false)], limit: 4, offset: 2),
        FetchRequest(entity: "Dog", predicate: weightRange(.greaterOrEqual, 6, .lessOrEqual, 6),
                     sortDescriptors: [RecordSortDescriptor(key: "weight", ascending: false)], limit: 2),
        FetchRequest(entity: "Pet", predicate: weightRange(.lessOrEqual, 5, .greaterOrEqual, 5),
                     sortDescriptors: [RecordSortDescriptor(key: "weight", ascending: false)], limit: 3),
        FetchRequest(entity: "Pet", predicate: weightRange(.greaterOrEqual, 7, .lessOrEqual, 9),
                     sortDescriptors: [RecordSortDescriptor(key: "weight", ascending: false)], limit: 3),
        FetchRequest(entity: "Pet", predicate: weightRange(.greaterOrEqual, 2, .lessOrEqual, 4),
                     sortDescriptors: [RecordSortDescriptor(key: "tag", ascending: false)], limit: 4),
        FetchRequest(entity: "Pet", sortDescriptors: [RecordSortDescriptor(key: "weight", ascending: false)], limit: 0),
        FetchRequest(entity: "Pet", sortDescriptors: [RecordSortDescriptor(key: "weight", ascending: false)], limit: 500),
    ]

    /// `weight first a AND weight second b`.
    private static func weightRange(_ first: ComparisonOperator, _ a: Double, _ second: ComparisonOperator, _ b: Double) -> RecordPredicate {
        .and([.comparison(Comparison("weight", first, .double(a))), .comparison(Comparison("weight", second, .double(b)))])
    }

    @Test("A limited sort answers what the reference evaluator answers", arguments: requests)
    func limitedSortsMatchTheReference(_ request: FetchRequest) throws {
        let storage = try KV.openStore()
        _ = try storage.write(ChangeSet(inserts: Self.records()))
        // The sort is ranked during the scan, not read in index order.
        #expect(try !FetchPlanner(layout: KeyValueLayout(schema: KV.schema)).plan(request).isOrdered)
        let answer = try storage.read { try $0.fetch(request) }
        #expect(answer.pending.isEmpty)
        let all = try storage.read { try $0.fetch(FetchRequest(entity: request.entity, includesSubentities: request.includesSubentities)) }
        let expected = try FetchResult(records: all.records, pending: .all).completed(for: request, schema: KV.schema)
        #expect(answer.records.map(\.id) == expected.map(\.id))
        #expect(answer.records == expected)
    }

    @Test("The cutoff skips a record only when its first sort value ranks strictly after the boundary")
    func cutoffComparesOneKindOfNumber() throws {
        let record = { (weight: Value) in
            Record(id: RecordID(entity: "Pet", key: 1), attributes: [.string("p"), .int(1), weight], relationships: [[]])
        }
        let names = KeyValueLayout(schema: KV.schema).entityNames
        let pet = try #require(names.names.firstIndex(of: "Pet"))
        let candidate = ScanCandidate(names: names, checksChecksums: true)
        func excludes(_ cutoff: RankingCutoff, _ weight: Value) throws -> Bool {
            try RecordCodec.encode(record(weight)).withUnsafeBytes { bytes in
                _ = try candidate.reset(bytes)
                return try cutoff.excludes(candidate, entity: pet)
            }
        }
        let descending = RankingCutoff(entityCount: names.names.count, ascends: false)
        descending.setFirstOrdinal(2, ofEntity: pet)
        // No boundary yet (the ranking is not full): nothing is skipped.
        #expect(try !excludes(descending, .double(-100)))
        descending.setBoundary(.double(5))
        #expect(try excludes(descending, .double(4.5)))
        #expect(try !excludes(descending, .double(5)), "a tie is the ranking's to decide")
        #expect(try !excludes(descending, .double(6)))
        #expect(try !excludes(descending, .double(.nan)))
        #expect(try !excludes(descending, .null))
        let ascending = RankingCutoff(entityCount: names.names.count, ascends: true)
        ascending.setBoundary(.double(5))
        // The entity's first sort key is not known yet: nothing is skipped.
        #expect(try !excludes(ascending, .double(6)))
        ascending.setFirstOrdinal(2, ofEntity: pet)
        #expect(try excludes(ascending, .double(6)))
        #expect(try !excludes(ascending, .double(4)))
        // A boundary of the other kind of number: the ranking compares them.
        ascending.setBoundary(.integer(5))
        #expect(try !excludes(ascending, .double(6)))
    }
}
