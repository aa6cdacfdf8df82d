import Foundation
import Testing
import CoreStoreStorage
import CoreStoreInMemory
@testable import CoreStoreKeyValue

/// The same random change sets and fetch requests against `InMemoryStore` (the reference) and
/// `KeyValueStorage<MemoryKeyValueStore>`: every outcome — records, counts, errors — must match.
@Suite("KeyValueStorage answers exactly like InMemoryStore")
struct DifferentialTests {
    struct Model {
        var live: [RecordID] = []
    }

    static let names = ["Ann", "Bob", "Cy", "ann", "Ann\0", "", "Zoë", "Rex"]
    static let emails = ["a@x", "b@x", "c@x", "d@x", "e@x", "f@x", "g@x", "h@x"]

    static func optional<T>(_ g: inout SeededGenerator, _ make: (inout SeededGenerator) -> T) -> T? {
        Int.random(in: 0..<4, using: &g) == 0 ? nil : make(&g)
    }

    static func age(_ g: inout SeededGenerator) -> Value {
        switch Int.random(in: 0..<13, using: &g) {
        case 0: return .null
        case 1: return .int([Int64.min, Int64.max].randomElement(using: &g) ?? 0)
        case 2: return .decimal(Decimal(UInt64.max - UInt64.random(in: 0...3, using: &g)))
        // The last group key a streamed aggregate finds by value, and the first it hashes.
        case 3: return .int([4_095, 4_096].randomElement(using: &g) ?? 0)
        default: return .int(Int64.random(in: -3...12, using: &g))
        }
    }

    static func score(_ g: inout SeededGenerator) -> Value {
        switch Int.random(in: 0..<10, using: &g) {
        case 0: return .null
        case 1: return .double([0.0, -0.0, .nan, .infinity, -.infinity].randomElement(using: &g) ?? 0)
        default: return .double(Double(Int.random(in: -8...8, using: &g)) / 2)
        }
    }

    static func randomRecord(_ id: RecordID, _ model: Model, temporaries: [RecordID], _ g: inout SeededGenerator) -> Record {
        let people = (model.live + temporaries).filter { $0.entity == "Person" }
        let pets = (model.live + temporaries).filter { $0.entity != "Person" }
        let name = Value.string(names.randomElement(using: &g) ?? "")
        switch id.entity {
        case "Person":
            let email: Value = Int.random(in: 0..<3, using: &g) == 0 ? .null : .string(emails.randomElement(using: &g) ?? "")
            let petIDs = pets.isEmpty ? [] : (0..<Int.random(in: 0...2, using: &g)).compactMap { _ in pets.randomElement(using: &g) }
            return Record(id: id, attributes: [name, age(&g), email, score(&g)], relationships: [Array(Set(petIDs)).sorted()])
        default:
            let tag: Value = Int.random(in: 0..<3, using: &g) == 0 ? .null : .int(Int64.random(in: 1...12, using: &g))
            let owner = Bool.random(using: &g) ? people.randomElement(using: &g).map { [$0] } ?? [] : []
            var attributes = [name, tag, score(&g)]
            if id.entity == "Dog" { attributes.append(Bool.random(using: &g) ? .null : .string(["lab", "pug", "collie"].randomElement(using: &g) ?? "")) }
            return Record(id: id, attributes: attributes, relationships: [owner])
        }
    }

    static func randomChangeSet(_ model: Model, _ g: inout SeededGenerator) -> ChangeSet {
        var changes = ChangeSet()
        var temporaries: [RecordID] = []
        for i in 0..<Int.random(in: 0...3, using: &g) {
            temporaries.append(RecordID(entity: ["Person", "Pet", "Dog"].randomElement(using: &g) ?? "Pet", key: -Int64(i + 1)))
        }
        changes.inserts = temporaries.map { randomRecord($0, model, temporaries: temporaries, &g) }
        var touched = Set<Int64>()
        for _ in 0..<Int.random(in: 0...2, using: &g) {
            guard let id = model.live.randomElement(using: &g), touched.insert(id.key).inserted else { continue }
            changes.updates.append(RecordUpdate(record: randomRecord(id, model, temporaries: temporaries, &g), changedKeys: []))
        }
        if Int.random(in: 0..<3, using: &g) == 0, let id = model.live.randomElement(using: &g), touched.insert(id.key).inserted {
            changes.deletes.append(id)
        }
        if Int.random(in: 0..<25, using: &g) == 0 {
            changes.deletes.append(RecordID(entity: "Person", key: 10_000))
        }
        return changes
    }

    static func attributeComparison(_ entity: String, _ g: inout SeededGenerator) -> Comparison {
        var keys = ["name", "name", "tag", "weight"]
        if entity == "Person" { keys = ["name", "age", "age", "email", "score", "score"] }
        if entity == "Dog" { keys.append("breed") }
        let key = keys.randomElement(using: &g) ?? "name"
        let value: Value
        switch key {
        case "age": value = age(&g)
        case "tag": value = Bool.random(using: &g) ? .int(Int64.random(in: 0...13, using: &g)) : .double(Double(Int.random(in: 0...26, using: &g)) / 2)
        case "score", "weight": value = score(&g)
        case "email": value = Bool.random(using: &g) ? .null : .string(emails.randomElement(using: &g) ?? "")
        case "breed": value = .string(["lab", "pug", "collie", "p"].randomElement(using: &g) ?? "")
        default: value = .string(names.randomElement(using: &g) ?? "")
        }
        let op = [ComparisonOperator.equal, .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual, .between, .in, .beginsWith].randomElement(using: &g) ?? .equal
        switch op {
        case .between:
            let other: Value = key == "age" ? age(&g) : value
            return Comparison([key], .between, .list([value, other]))
        case .in:
            return Comparison([key], .in, .list([value, key == "age" ? age(&g) : value]))
        case .beginsWith:
            return Comparison([key], .beginsWith, .value(.string(["A", "a", "", "B", "p"].randomElement(using: &g) ?? "")))
        default:
            let options: StringComparisonOptions = Int.random(in: 0..<6, using: &g) == 0 ? [.caseInsensitive] : []
            return Comparison([key], op, .value(value), options: options, quantifier: Int.random(in: 0..<10, using: &g) == 0 ? .none : .any)
        }
    }

    static func comparison(_ entity: String, _ model: Model, _ g: inout SeededGenerator) -> RecordPredicate {
        switch Int.random(in: 0..<8, using: &g) {
        case 0 where entity == "Person":
            let inner = attributeComparison("Pet", &g)
            let quantifier = [Quantifier.any, .all, .none].randomElement(using: &g) ?? .any
            return .comparison(Comparison(["pets"] + inner.keyPath, inner.op, inner.operand, quantifier: quantifier))
        case 1 where entity == "Person":
            return .comparison(Comparison(["pets"], [ComparisonOperator.greater, .equal].randomElement(using: &g) ?? .equal, .value(.int(Int64.random(in: 0...2, using: &g))), function: .count))
        case 0 where entity != "Person":
            let inner = attributeComparison("Person", &g)
            return .comparison(Comparison(["owner"] + inner.keyPath, inner.op, inner.operand))
        case 1 where entity != "Person":
            let people = model.live.filter { $0.entity == "Person" }
            if Bool.random(using: &g), let person = people.randomElement(using: &g) {
                return .comparison(Comparison(["owner"], .equal, .records([person])))
            }
            return .comparison(Comparison(["owner"], .equal, .value(.null)))
        default:
            return .comparison(attributeComparison(entity, &g))
        }
    }

    static func predicate(_ entity: String, _ model: Model, _ g: inout SeededGenerator) -> RecordPredicate? {
        switch Int.random(in: 0..<8, using: &g) {
        case 0: return nil
        case 1: return .or([comparison(entity, model, &g), comparison(entity, model, &g)])
        case 2: return .not(comparison(entity, model, &g))
        case 3, 4: return .and((0..<Int.random(in: 1...3, using: &g)).map { _ in comparison(entity, model, &g) })
        default: return comparison(entity, model, &g)
        }
    }

    static func request(_ model: Model, _ g: inout SeededGenerator) -> FetchRequest {
        let entity = ["Person", "Person", "Pet", "Dog"].randomElement(using: &g) ?? "Person"
        var keys = ["name", "tag", "weight"]
        if entity == "Person" { keys = ["name", "age", "email", "score"] }
        let sorts = (0..<Int.random(in: 0...2, using: &g)).map { _ in
            RecordSortDescriptor(key: keys.randomElement(using: &g) ?? "name", ascending: Bool.random(using: &g))
        }
        return FetchRequest(
            entity: entity, includesSubentities: Int.random(in: 0..<4, using: &g) != 0, predicate: predicate(entity, model, &g),
            sortDescriptors: sorts, limit: Bool.random(using: &g) ? Int.random(in: 0...4, using: &g) : nil,
            offset: Int.random(in: 0..<4, using: &g) == 0 ? Int.random(in: 0...3, using: &g) : 0
        )
    }

    func outcome<T>(_ body: () throws -> T) -> Result<T, StorageError> {
        do { return .success(try body()) } catch let error as StorageError { return .failure(error) } catch { return .failure(.engine(code: 0, message: "\(error)")) }
    }

    @Test("Random change sets and fetches give identical results", arguments: Array(1...8) as [UInt64])
    func sameAnswers(seed: UInt64) throws {
        var g = SeededGenerator(seed: seed)
        let reference = InMemoryStore()
        _ = try reference.open(schema: KV.schema)
        let storage = try KV.openStore()
        var model = Model()
        var commits = 0, failures = 0, indexed = 0, ordered = 0, exact = 0, groupsFromEntries = 0, extremesFromEntries = 0
        let layout = KeyValueLayout(schema: KV.schema)
        let planner = FetchPlanner(layout: layout)
        for step in 0..<150 {
            let changes = Self.randomChangeSet(model, &g)
            let expected = outcome { try reference.write(changes) }
            let actual = outcome { try storage.write(changes) }
            switch (expected, actual) {
            case (.success(let e), .success(let a)):
                #expect(e == a, "step \(step)")
                commits += 1
                model.live.removeAll { changes.deletes.contains($0) }
                model.live += changes.inserts.compactMap { e.permanentIDs[$0.id] }
            case (.failure(let e), .failure(let a)):
                #expect(e == a, "step \(step): \(changes)")
                failures += 1
            default:
                Issue.record("step \(step): reference \(expected) vs key-value \(actual) for \(changes)")
            }
            for _ in 0..<8 {
                let request = Self.request(model, &g)
                let plan = try planner.plan(request)
                switch plan.access {
                case .indexRange, .indexRanges: indexed += 1
                case .entityScan: break
                }
                if plan.isOrdered { ordered += 1 }
                if plan.isExact { exact += 1 }
                let e = outcome { try reference.read { reader in try reader.fetch(request).completed(for: request, schema: KV.schema) } }
                let a = outcome { try storage.read { reader in try reader.fetch(request).completed(for: request, schema: KV.schema) } }
                switch (e, a) {
                case (.success(let x), .success(let y)):
                    #expect(x == y, "step \(step): \(request)\n  reference \(x.map(\.id))\n  key-value \(y.map(\.id))")
                case (.failure(let x), .failure(let y)):
                    #expect(x == y, "step \(step): \(request)")
                default:
                    Issue.record("step \(step): \(request): reference \(e) vs key-value \(a)")
                }
                let ec = outcome { try reference.read { try $0.count(request) } }
                let ac = outcome { try storage.read { try $0.count(request) } }
                #expect(String(describing: ec) == String(describing: ac), "count, step \(step): \(request)")
            }
            // Ages hold extremes (integer sums that overflow) and decimals (values an integer
            // attribute should not hold); scores hold NaN, infinities and -0.0.
            let predicate = Self.predicate("Person", model, &g)
            let ascending = Bool.random(using: &g)
            // Grouped by age, small non-negative ages find their group by value and the others
            // (negative, extreme, decimal, nil) through the group table; ungrouped, every
            // record is in one group. Both read integers and doubles straight from the bytes.
            for (terms, groupBy) in [
                ([AggregateTerm(.value, "name"), AggregateTerm(.count, "age"), AggregateTerm(.maximum, "score"), AggregateTerm(.minimum, "age")], "name"),
                ([AggregateTerm(.value, "name"), AggregateTerm(.average, "age"), AggregateTerm(.sum, "score"), AggregateTerm(.average, "score")], "name"),
                ([AggregateTerm(.sum, "age")], "name"),
                ([AggregateTerm(.value, "age"), AggregateTerm(.count, "score"), AggregateTerm(.sum, "score"), AggregateTerm(.sum, "age"), AggregateTerm(.average, "age")], "age"),
                ([AggregateTerm(.count, "age"), AggregateTerm(.sum, "score"), AggregateTerm(.average, "score"), AggregateTerm(.average, "age")], nil),
                // Only the group key: from the index's entries where the predicate allows.
                ([AggregateTerm(.value, "age"), AggregateTerm(.count, "age"), AggregateTerm(.maximum, "age")], "age"),
                ([AggregateTerm(.count, "name"), AggregateTerm(.value, "name")], "name"),
                // Extremes of indexed attributes: from the ends of the indexes without a predicate.
                ([AggregateTerm(.minimum, "age"), AggregateTerm(.maximum, "age"), AggregateTerm(.maximum, "name")], nil),
            ] as [([AggregateTerm], String?)] {
                let aggregate = AggregateRequest(
                    entity: "Person", predicate: predicate, terms: terms,
                    groupBy: groupBy.map { [$0] } ?? [], sortDescriptors: groupBy.map { [RecordSortDescriptor(key: $0, ascending: ascending)] } ?? []
                )
                let aggregatePlan = try planner.plan(FetchRequest(entity: "Person", predicate: predicate))
                if IndexOnlyGroups(aggregate, plan: aggregatePlan, layout: layout) != nil { groupsFromEntries += 1 }
                if IndexOnlyExtremes(aggregate, plan: aggregatePlan, layout: layout) != nil { extremesFromEntries += 1 }
                let ea = outcome { try reference.read { try $0.aggregate(aggregate, schema: KV.schema) } }
                let aa = outcome { try storage.read { try $0.aggregate(aggregate, schema: KV.schema) } }
                #expect(String(describing: ea) == String(describing: aa), "aggregate, step \(step): \(aggregate)")
            }
            let ids = model.live + [RecordID(entity: "Person", key: 9_999)]
            #expect(try reference.read { try $0.records(ids) } == storage.read { try $0.records(ids) })
        }
        #expect(commits > 40 && failures > 5 && indexed > 100, "commits \(commits), failures \(failures), index plans \(indexed)")
        #expect(ordered > 5, "plans that read an index in sort order: \(ordered)")
        #expect(exact > 20, "counts answered from index entries alone: \(exact)")
        #expect(groupsFromEntries > 10, "grouped requests answered from index entries alone: \(groupsFromEntries)")
        #expect(extremesFromEntries > 3, "extremes answered from the ends of indexes: \(extremesFromEntries)")
    }
}
