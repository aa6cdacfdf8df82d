import Foundation
import Testing
import CoreStoreStorage
import CoreStoreInMemory
@testable import CoreStoreKeyValue

/// `IN` read as one index range per member.
@Suite("FetchPlanner IN lists")
struct FetchPlannerInTests {
    private let planner = FetchPlanner(layout: KeyValueLayout(schema: KV.schema))

    private func plan(_ predicate: RecordPredicate, entity: String = "Person", sort: [RecordSortDescriptor] = []) throws -> FetchPlan {
        try planner.plan(FetchRequest(entity: entity, predicate: predicate, sortDescriptors: sort))
    }

    private func isIn(_ key: String, _ members: [Value]) -> RecordPredicate {
        .comparison(Comparison([key], .in, .list(members)))
    }

    /// The index and number of ranges of a multi-range plan.
    private func ranges(_ plan: FetchPlan) -> (index: String, count: Int)? {
        guard case .indexRanges(let index, let ranges) = plan.access else { return nil }
        return (index, ranges.count)
    }

    @Test("An IN reads one range per distinct member and does not stand in for a sort by another key")
    func oneRangePerMember() throws {
        let names = try plan(isIn("name", [.string("Bob"), .string("Ann"), .string("Bob"), .string("Cy")]), sort: [RecordSortDescriptor(key: "age", ascending: true)])
        #expect(ranges(names)?.count == 3)
        #expect(!names.isOrdered)
        let emails = try plan(isIn("email", (0..<1_000).map { .string("e\($0)@x") }))
        #expect(ranges(emails)?.index == "Person|u|email" && ranges(emails)?.count == 1_000)
        guard case .indexRanges(_, let list) = emails.access else { return }
        #expect(zip(list, list.dropFirst()).allSatisfy { $0.upperBound.lexicographicallyPrecedes($1.lowerBound) || $0.upperBound == $1.lowerBound },
                "ascending and disjoint")
    }

    @Test("An IN with one distinct member is an equality")
    func singleMember() throws {
        let single = try plan(isIn("email", [.string("a@x"), .string("a@x")]))
        guard case .indexRange(let index, _, _) = single.access else { Issue.record("expected one range"); return }
        #expect(index == "Person|u|email")
    }

    @Test("nil members are usable like == nil; a member of another value case makes the IN unusable")
    func memberRules() throws {
        #expect(ranges(try plan(isIn("age", [.int(3), .null])))?.index == "Person|i|age")
        #expect(try plan(isIn("age", [.int(3), .double(4)])).access == .entityScan)
        #expect(try plan(isIn("age", [.int(3), .decimal(4)])).access == .entityScan)
        #expect(try plan(isIn("score", [.double(1), .double(.nan)])).access == .entityScan)
        #expect(try plan(isIn("age", [])).access == .entityScan)
        let caseless = RecordPredicate.comparison(Comparison(["name"], .in, .list([.string("a"), .string("b")]), options: .caseInsensitive))
        #expect(try plan(caseless).access == .entityScan)
    }

    @Test("IN combines with equalities and a range of a compound index; ties go to fewer ranges")
    func scoring() throws {
        let compound = try plan(.and([isIn("name", [.string("Ann"), .string("Bob")]), .comparison(Comparison("age", .greater, .int(3)))]))
        #expect(ranges(compound)?.index == "Person|c|name,age" && ranges(compound)?.count == 2)
        // The name indexes come first and score as high, but need two ranges.
        let tie = try plan(.and([isIn("name", [.string("Ann"), .string("Bob")]), .comparison(Comparison("score", .equal, .double(1)))]))
        guard case .indexRange(let index, _, _) = tie.access else { Issue.record("expected the equality's index"); return }
        #expect(index == "Person|i|score")
        let unique = try plan(.and([isIn("email", [.string("a@x"), .string("b@x")]), isIn("age", [.int(1), .int(2)])]))
        #expect(ranges(unique)?.index == "Person|u|email", "a fully constrained unique index wins")
        let owners = try plan(.comparison(Comparison(["owner"], .in, .records([RecordID(entity: "Person", key: 2), RecordID(entity: "Person", key: 1)]))), entity: "Pet")
        #expect(ranges(owners)?.index == "Pet|r|owner" && ranges(owners)?.count == 2)
    }

    @Test("Several INs multiply their ranges up to the cap")
    func combinations() throws {
        let both = try plan(.and([isIn("name", [.string("Ann"), .string("Bob")]), isIn("age", [.int(1), .int(2), .int(3)])]))
        #expect(ranges(both)?.index == "Person|c|name,age" && ranges(both)?.count == 6)
        let many = (0..<1_000).map { Value.int(Int64($0)) }
        let names = (0..<200).map { Value.string("n\($0)") }
        let capped = try plan(.and([isIn("name", names), isIn("age", many)]))
        #expect(ranges(capped)?.count == 200, "200 × 1,000 ranges exceed the cap: only the names are used")
    }

    @Test("IN fetches answer exactly like the reference store, in record-key order", arguments: [false, true])
    func sameAnswers(sorted: Bool) throws {
        let reference = InMemoryStore()
        _ = try reference.open(schema: KV.schema)
        let storage = try KV.openStore()
        var people: [Record] = []
        for i in 0..<3_000 {
            let email: String? = i % 10 == 0 ? nil : "p\(i)@x"
            people.append(KV.person(-Int64(i + 1), ["Ann", "Bob", "Cy", "e\u{301}", "\u{e9}"][i % 5], age: i % 7 == 0 ? nil : Int64(i % 50), email: email,
                                    score: i % 11 == 0 ? -0.0 : Double(i % 13) / 2))
        }
        let changes = ChangeSet(inserts: people)
        _ = try reference.write(changes)
        _ = try storage.write(changes)
        let sort = sorted ? [RecordSortDescriptor(key: "name", ascending: false), RecordSortDescriptor(key: "age", ascending: true)] : []
        let predicates: [RecordPredicate] = [
            isIn("email", (0..<4_000).filter { $0 % 3 == 0 }.map { .string("p\($0)@x") }),
            isIn("email", [.null] + (0..<40).map { .string("p\($0 * 7)@x") }),
            isIn("age", [.null, .int(3), .int(3), .int(49), .int(77)]),
            isIn("score", [.double(0.0), .double(6), .double(2.5)] + (100..<120).map { .double(Double($0)) }),
            isIn("name", [.string("\u{e9}"), .string("Cy")]),
            .and([isIn("name", [.string("Ann"), .string("e\u{301}")]), isIn("age", (0..<30).map { .int(Int64($0)) }), .comparison(Comparison(["email"], .notEqual, .value(.null)))]),
            .and([isIn("name", [.string("Bob"), .string("Cy")]), .comparison(Comparison(["age"], .between, .list([.int(10), .int(20)])))]),
        ]
        for predicate in predicates {
            for (limit, offset) in [(nil, 0), (5, 3)] as [(Int?, Int)] {
                let request = FetchRequest(entity: "Person", predicate: predicate, sortDescriptors: sort, limit: limit, offset: offset)
                #expect(try planner.plan(request).access != .entityScan)
                let expected = try reference.read { try $0.fetch(request).completed(for: request, schema: KV.schema) }.map(\.id)
                let actual = try storage.read { try $0.fetch(request).completed(for: request, schema: KV.schema) }.map(\.id)
                #expect(actual == expected, "\(predicate)")
                #expect(try storage.read { try $0.count(request) } == reference.read { try $0.count(request) })
                #expect(!expected.isEmpty)
            }
        }
    }

    @Test("An IN sorted by its index's components from the IN on reads its ranges in order, and answers like the reference store")
    func sortedByTheInComponent() throws {
        let reference = InMemoryStore()
        _ = try reference.open(schema: KV.schema)
        let storage = try KV.openStore()
        let names = ["Ann", "Bob", "Cy", "Dee"]
        var people: [Record] = []
        for i in 0..<2_000 {
            let age: Int64? = i % 9 == 0 ? nil : Int64((i * 7) % 40)
            people.append(KV.person(-Int64(i + 1), names[i % 4], age: age, score: Double(i % 17)))
        }
        _ = try reference.write(ChangeSet(inserts: people))
        _ = try storage.write(ChangeSet(inserts: people))
        let ascending = { (key: String) in RecordSortDescriptor(key: key, ascending: true) }
        let cases: [(RecordPredicate, [RecordSortDescriptor], ordered: Bool)] = [
            (isIn("age", [.int(30), .null, .int(3), .int(11)]), [ascending("age")], true),
            (isIn("score", [.double(16), .double(0), .double(4)]), [ascending("score")], true),
            (.and([isIn("name", [.string("Dee"), .string("Ann")]), isIn("age", [.int(5), .int(1), .null])]), [ascending("name"), ascending("age")], true),
            (.and([.comparison(Comparison("name", .equal, .string("Bob"))), isIn("age", [.int(35), .int(7)])]), [ascending("age")], true),
            // Not served: descending, or a sort that skips the IN's component.
            (isIn("age", [.int(30), .int(3)]), [RecordSortDescriptor(key: "age", ascending: false)], false),
            (.and([isIn("name", [.string("Dee"), .string("Ann")]), isIn("age", [.int(5), .int(1)])]), [ascending("age")], false),
        ]
        for (predicate, sort, ordered) in cases {
            for (limit, offset) in [(nil, 0), (7, 2), (1, 0)] as [(Int?, Int)] {
                let request = FetchRequest(entity: "Person", predicate: predicate, sortDescriptors: sort, limit: limit, offset: offset)
                #expect(try planner.plan(request).isOrdered == ordered, "\(predicate) sorted by \(sort)")
                let expected = try reference.read { try $0.fetch(request).completed(for: request, schema: KV.schema) }.map(\.id)
                let actual = try storage.read { try $0.fetch(request).completed(for: request, schema: KV.schema) }.map(\.id)
                #expect(actual == expected, "\(predicate) sorted by \(sort), limit \(String(describing: limit))")
                #expect(!expected.isEmpty)
            }
        }
    }
}
