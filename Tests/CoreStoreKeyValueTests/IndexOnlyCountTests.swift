import Foundation
import Testing
import CoreStoreStorage
@testable import CoreStoreKeyValue

/// Counts whose predicate an index answers completely count index entries and read no record;
/// every other count still reads and re-checks records. (The differential test compares both
/// kinds with the reference store.)
@Suite("Index-only counts")
struct IndexOnlyCountTests {
    private static func planIsExact(_ predicate: RecordPredicate, entity: String = "Person", includesSubentities: Bool = true) throws -> Bool {
        try FetchPlanner(layout: KeyValueLayout(schema: KV.schema))
            .plan(FetchRequest(entity: entity, includesSubentities: includesSubentities, predicate: predicate)).isExact
    }

    private static func compare(_ key: String, _ op: ComparisonOperator, _ value: Value) -> RecordPredicate {
        .comparison(Comparison(key, op, value))
    }

    @Test("Equalities, ranges and IN lists an index applies completely are exact", arguments: [
        compare("age", .equal, .int(3)),
        compare("name", .greater, .string("B")),
        compare("name", .lessOrEqual, .string("B")),
        compare("age", .equal, .null),
        .and([compare("age", .greater, .int(3)), compare("age", .lessOrEqual, .int(30))]),
        .comparison(Comparison(["age"], .between, .list([.int(1), .int(9)]))),
        .comparison(Comparison(["age"], .in, .list([.int(1), .int(9), .null]))),
        .and([compare("name", .equal, .string("Ann")), compare("age", .greater, .int(1)), compare("age", .less, .int(9))]),
        .and([compare("score", .greater, .double(-1)), compare("score", .lessOrEqual, .double(2.5))]),
    ] as [RecordPredicate])
    func exactPlans(_ predicate: RecordPredicate) throws {
        #expect(try Self.planIsExact(predicate))
    }

    @Test("Anything else re-checks records", arguments: [
        // A conjunct the index does not apply.
        .and([compare("age", .equal, .int(3)), compare("email", .equal, .string("x"))]),
        // A second bound the plan ignores.
        .and([compare("age", .greater, .int(3)), compare("age", .greater, .int(5))]),
        .and([compare("age", .equal, .int(3)), compare("age", .equal, .int(4))]),
        // An equality on the range component of the chosen index.
        .and([compare("name", .equal, .string("Ann")), compare("age", .greater, .int(1)), compare("age", .equal, .int(2))]),
        // Unique indexes may leave out tuples with nil.
        compare("email", .equal, .string("x")),
        // Options, other operators, a constant of another type, a disjunction, a negation.
        .comparison(Comparison(["name"], .equal, .value(.string("ann")), options: [.caseInsensitive])),
        compare("age", .notEqual, .int(3)),
        compare("age", .equal, .double(3)),
        .or([compare("age", .equal, .int(3)), compare("age", .equal, .int(4))]),
        .not(compare("age", .equal, .int(3))),
        // A range of numbers open on one side runs to the end of the number codes, where NaNs
        // (and numbers a raw storage client stored in another case) lie.
        compare("score", .lessOrEqual, .double(2.5)),
        compare("score", .greater, .double(2.5)),
        compare("age", .greater, .int(3)),
    ] as [RecordPredicate])
    func inexactPlans(_ predicate: RecordPredicate) throws {
        #expect(try !Self.planIsExact(predicate))
    }

    @Test("An index maintained by entities the request leaves out is not exact")
    func indexOfUnselectedEntities() throws {
        // Dog's breed index has Dog's entries only: exact for Dog. Pet's unique tag index has
        // Pet's and Dog's entries (and is unique): never exact, with or without Dog selected.
        #expect(try Self.planIsExact(Self.compare("breed", .equal, .string("pug")), entity: "Dog"))
        #expect(try !Self.planIsExact(Self.compare("tag", .equal, .int(3)), entity: "Pet", includesSubentities: false))
        #expect(try !Self.planIsExact(Self.compare("tag", .equal, .int(3)), entity: "Pet"))
    }

    @Test("An exact count reads no record: it answers while a record is damaged, and equals the fetch once repaired")
    func exactCountReadsNoRecord() throws {
        let engine = MemoryKeyValueStore()
        let storage = try KV.openStore(engine)
        _ = try storage.write(ChangeSet(inserts: (1...40).map { KV.person(-$0, "P\($0 % 7)", age: $0 % 5, score: Double($0)) }))
        let predicate = Self.compare("age", .equal, .int(3))
        let key = KeyValueLayout(schema: KV.schema).recordKey(entity: "Person", key: 3)
        let intact = try #require(try engine.read { try $0.get(key) })
        try engine.write { try $0.put(key, [2, 0, 0, 0, 0]) }
        #expect(try storage.read { try $0.count(FetchRequest(entity: "Person", predicate: predicate)) } == 8)
        #expect(try storage.read { try $0.count(FetchRequest(entity: "Person", predicate: predicate, limit: 3)) } == 3)
        #expect(try storage.read { try $0.count(FetchRequest(entity: "Person", predicate: predicate, limit: 5, offset: 6)) } == 2)
        #expect(throws: StorageError.self) { try storage.read { try $0.fetch(FetchRequest(entity: "Person", predicate: predicate)) } }
        // An inexact count over the same records reads them, and meets the damage.
        #expect(throws: StorageError.self) {
            try storage.read { try $0.count(FetchRequest(entity: "Person", predicate: .and([predicate, Self.compare("score", .greater, .double(0))]))) }
        }
        try engine.write { try $0.put(key, intact) }
        #expect(try storage.read { try $0.fetch(FetchRequest(entity: "Person", predicate: predicate)) }.records.count == 8)
    }
}
