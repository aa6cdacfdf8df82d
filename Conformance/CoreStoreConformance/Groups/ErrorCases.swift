import Foundation
import CoreStoreStorage

/// Every bad input gets a thrown ``StorageError``, never a crash or a silent answer (requirement 7).
enum ErrorCases {
    enum Kind: Sendable { case any, unknownEntity, unknownKey, invalidRequest }

    static func matches(_ kind: Kind) -> (StorageError) -> Bool {
        { error in
            switch (kind, error) {
            case (.any, _), (.unknownEntity, .unknownEntity), (.unknownKey, .unknownKey), (.invalidRequest, .invalidRequest): return true
            default: return false
            }
        }
    }

    /// `count(_:)` ignores sort keys, so it is only checked when the error is not about sorting.
    static func fetch(_ name: String, _ kind: Kind, _ request: FetchRequest) -> ConformanceCase {
        ConformanceCase("fetch with \(name) throws", group: "errors") { ctx in
            let (store, _) = try ctx.seeded(Fixtures.world())
            try ctx.expectError("fetch with \(name)", matching: matches(kind)) { _ = try ctx.fetch(store, request) }
            if request.sortDescriptors.isEmpty {
                try ctx.expectError("count with \(name)", matching: matches(kind)) { _ = try store.read { try $0.count(request) } }
            }
        }
    }

    static func aggregate(_ name: String, _ kind: Kind, _ request: AggregateRequest) -> ConformanceCase {
        ConformanceCase("aggregate with \(name) throws", group: "errors") { ctx in
            let (store, _) = try ctx.seeded(Fixtures.world())
            try ctx.expectError("aggregate with \(name)", matching: matches(kind)) {
                _ = try store.read { try $0.aggregate(request, schema: Fixtures.schema) }
            }
        }
    }

    static func cmp(_ keyPath: [String], _ op: ComparisonOperator, _ operand: Operand, function: KeyPathFunction? = nil) -> RecordPredicate {
        .comparison(Comparison(keyPath, op, operand, function: function))
    }

    static let all: [ConformanceCase] = [
        fetch("an unknown entity", .unknownEntity, FetchRequest(entity: "Unicorn")),
        fetch("an unknown predicate key", .unknownKey, FetchRequest(entity: "Person", predicate: cmp(["height"], .equal, .value(.int(1))))),
        fetch("an unknown key in a path", .unknownKey, FetchRequest(entity: "Pet", predicate: cmp(["owner", "height"], .equal, .value(.int(1))))),
        fetch("a sub-entity key on the parent", .unknownKey, FetchRequest(entity: "Pet", predicate: cmp(["breed"], .equal, .value(.string("lab"))))),
        fetch("an unknown sort key", .unknownKey, FetchRequest(entity: "Person", sortDescriptors: [RecordSortDescriptor(key: "height", ascending: true)])),
        fetch("an invalid MATCHES expression", .any, FetchRequest(entity: "Person", predicate: cmp(["name"], .matches, .value(.string("(unclosed"))))),
        fetch("IN without a list", .invalidRequest, FetchRequest(entity: "Person", predicate: cmp(["age"], .in, .value(.int(1))))),
        fetch("an empty key path", .invalidRequest, FetchRequest(entity: "Person", predicate: cmp([], .equal, .value(.int(1))))),
        fetch("an attribute followed by a key", .invalidRequest, FetchRequest(entity: "Person", predicate: cmp(["name", "length"], .equal, .value(.int(1))))),
        fetch("@count of an attribute", .invalidRequest, FetchRequest(entity: "Person", predicate: cmp(["name"], .equal, .value(.int(1)), function: .count))),
        fetch("a relationship ordered against a value", .invalidRequest, FetchRequest(entity: "Person", predicate: cmp(["pets"], .less, .value(.int(1))))),
        aggregate("an unknown entity", .unknownEntity, AggregateRequest(entity: "Unicorn", terms: [AggregateTerm(.count, "x")])),
        aggregate("an unknown key", .unknownKey, AggregateRequest(entity: "Person", terms: [AggregateTerm(.sum, "height")])),
        aggregate("a value term outside the group", .invalidRequest, AggregateRequest(entity: "Person", terms: [AggregateTerm(.value, "name"), AggregateTerm(.count, "age")], groupBy: ["age"])),
        aggregate("a sort key outside the group", .invalidRequest, AggregateRequest(entity: "Person", terms: [AggregateTerm(.count, "age")], groupBy: ["age"], sortDescriptors: [RecordSortDescriptor(key: "name", ascending: true)])),
        aggregate("average of a date", .invalidRequest, AggregateRequest(entity: "Sample", terms: [AggregateTerm(.average, "date")])),
        ConformanceCase("inserting an unknown entity throws", group: "errors") { ctx in
            let (store, world) = try ctx.seeded(Fixtures.world())
            try ctx.expectError("inserting a Unicorn") {
                _ = try store.write(ChangeSet(inserts: [Record(id: Fixtures.id("Unicorn", -1), attributes: [], relationships: [])]))
            }
            try ctx.expectSameFetch(store, world, FetchRequest(entity: "Person"))
        },
        ConformanceCase("inserting a record outside its relationship's bounds throws", group: "errors") { ctx in
            // One-way (no inverse changes the insert), 1 to 2 members: what the store is given
            // is all there is to check.
            let schema = StoreSchema(modelVersion: "V1", schemaHash: "conformance-bounds", entities: [
                EntityDescription(name: "Member", attributes: [AttributeDescription(name: "name", type: .string, isOptional: false)]),
                EntityDescription(name: "Team", attributes: [AttributeDescription(name: "name", type: .string, isOptional: false)], relationships: [
                    RelationshipDescription(name: "members", kind: .toManyOrdered, destinationEntity: "Member", inverseName: nil, minCount: 1, maxCount: 2),
                ]),
            ])
            let store = try ctx.openStore(schema: schema)
            let members = (1...3).map { Record(id: Fixtures.id("Member", -Int64($0)), attributes: [.string("M\($0)")], relationships: []) }
            func team(_ memberKeys: [Int64]) -> Record {
                Record(id: Fixtures.id("Team", -10), attributes: [.string("T")], relationships: [memberKeys.map { Fixtures.id("Member", $0) }])
            }
            for keys: [Int64] in [[-1, -2, -3], []] {
                try ctx.expectError("inserting a team of \(keys.count) members") {
                    _ = try store.write(ChangeSet(inserts: members + [team(keys)]))
                }
            }
            try ctx.expect(try ctx.fetch(store, FetchRequest(entity: "Member"), schema: schema).isEmpty, "a refused insert stored members")
            _ = try store.write(ChangeSet(inserts: members + [team([-1, -2])]))
            let teams = try ctx.fetch(store, FetchRequest(entity: "Team"), schema: schema)
            try ctx.expect(teams.count == 1 && teams[0].relationships[0].count == 2, "the team within bounds was not stored as given: \(teams)")
        },
    ]
}
