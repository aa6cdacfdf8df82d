import Foundation
import Testing
import CoreStoreKeyValue
import CoreStoreStorage

/// Large inserts and updates on every key-value store: LMDB writes their index entries sorted
/// (its writer prefers puts in key order; inserts one index at a time) and removes stale ones
/// sorted; the others in record order. Both leave the same indexes, and both report the first
/// unique violation in the change set's order.
@Suite("Index entries of large commits")
struct LargeCommitIndexTests {
    /// Person (indexed age and name, unique email) and Pet ← Dog (unique tag, indexed breed).
    static let schema = StoreSchema(modelVersion: "L", schemaHash: "hash-l", entities: [
        EntityDescription(name: "Person", attributes: [
            AttributeDescription(name: "name", type: .string, isOptional: false, isIndexed: true),
            AttributeDescription(name: "age", type: .integer, isOptional: true, isIndexed: true),
            AttributeDescription(name: "email", type: .string, isOptional: true),
        ], uniqueConstraints: [["email"]]),
        EntityDescription(name: "Pet", attributes: [
            AttributeDescription(name: "tag", type: .integer, isOptional: true),
        ], uniqueConstraints: [["tag"]]),
        EntityDescription(name: "Dog", parentName: "Pet", attributes: [
            AttributeDescription(name: "tag", type: .integer, isOptional: true),
            AttributeDescription(name: "breed", type: .string, isOptional: true, isIndexed: true),
        ]),
    ])

    /// People, pets and dogs taking turns, with names and ages in no order; `count` of them.
    static func inserts(_ count: Int, seed: UInt64) -> [Record] {
        var g = SeededGenerator(seed: seed)
        return (0..<count).map { i in
            let key = Int64(1_000 + i)
            switch i % 3 {
            case 0:
                return Record(id: RecordID(entity: "Person", key: key),
                              attributes: [.string("p\(Int.random(in: 0..<20, using: &g))"), .int(Int64.random(in: 0..<10, using: &g)), .string("e\(i)@x")],
                              relationships: [])
            case 1:
                return Record(id: RecordID(entity: "Pet", key: key), attributes: [.int(Int64(count - i))], relationships: [])
            default:
                return Record(id: RecordID(entity: "Dog", key: key), attributes: [.int(Int64(10 * count + i)), .string(["b", "a", "c"][i % 3])], relationships: [])
            }
        }
    }

    /// Runs `body` with an open store of `kind` in a fresh directory, holding `stored` (none by
    /// default); closes it afterwards.
    static func withStore(_ kind: MigrationStoreKind, holding stored: [Record] = [], _ body: (any MigratableStorage) throws -> Void) throws {
        try withMigrationSite(kind) { site in
            let storage = site.storage()
            _ = try storage.open(schema: Self.schema)
            defer { storage.close() }
            if !stored.isEmpty { _ = try storage.write(ChangeSet(inserts: stored)) }
            try body(storage)
        }
    }

    /// Expects the store's integrity check to find nothing wrong after looking at each of
    /// `records` and its entries: per person name, age and email; per pet its tag; per dog its
    /// tag and breed.
    static func expectWholeIndexes(_ storage: any MigratableStorage, holding records: [Record]) throws {
        var problems: [String] = []
        let looked = try #require(storage as? any StorageIntegrityChecking).checkIntegrity { problems.append($0) }
        #expect(problems.isEmpty)
        let entries = ["Person": 3, "Pet": 1, "Dog": 2]
        #expect(looked == records.reduce(0) { $0 + 1 + entries[$1.id.entity]! })
    }

    /// Expects the records of exactly `entity` whose `key` holds `value` to be those of `records`.
    static func expectFetch(_ storage: any MigratableStorage, _ entity: String, _ key: String, _ value: Value, in records: [Record]) throws {
        let request = FetchRequest(entity: entity, includesSubentities: false, predicate: .comparison(Comparison(key, .equal, value)))
        let found = try storage.read { try $0.fetch(request).completed(for: request, schema: Self.schema) }
        let ordinal = Self.schema.attributeOrdinal(key, in: entity)!
        #expect(found == records.filter { $0.id.entity == entity && $0.attributes[ordinal] == value })
    }

    /// Insert counts on both sides of the count from which LMDB's inserts are sorted (64).
    static let counts = [10, 63, 64, 700]

    @Test("Every record has its entries and every entry its record", arguments: MigrationStoreKind.allCases, counts)
    func largeInsertsLeaveTheIndexesWhole(_ kind: MigrationStoreKind, count: Int) throws {
        let records = Self.inserts(count, seed: UInt64(count))
        try Self.withStore(kind, holding: records) { storage in
            try Self.expectWholeIndexes(storage, holding: records)
            for age in [Int64(0), 3, 9] {
                try Self.expectFetch(storage, "Person", "age", .int(age), in: records)
            }
            try Self.expectFetch(storage, "Dog", "breed", .string("a"), in: records)
        }
    }

    @Test("The first unique value taken twice, in record order, is reported, and nothing is written",
          arguments: MigrationStoreKind.allCases, counts)
    func duplicateUniqueValues(_ kind: MigrationStoreKind, count: Int) throws {
        try Self.withStore(kind) { storage in
            var records = Self.inserts(count, seed: 9)
            // The last pet takes the first pet's tag, and later the last person the first
            // person's email: the tag comes first in record order.
            let pets = records.indices.filter { records[$0].id.entity == "Pet" }
            let people = records.indices.filter { records[$0].id.entity == "Person" }
            records[pets.last!].attributes[0] = records[pets.first!].attributes[0]
            records[people.last!].attributes[2] = records[people.first!].attributes[2]
            let expected = pets.last! < people.last!
                ? StorageError.uniqueConstraintViolation(entity: "Pet", attributes: ["tag"], values: [records[pets.first!].attributes[0]])
                : StorageError.uniqueConstraintViolation(entity: "Person", attributes: ["email"], values: [records[people.first!].attributes[2]])
            #expect(throws: expected) { try storage.write(ChangeSet(inserts: records)) }
            // No record and no index entry of the failed write is stored.
            try Self.expectWholeIndexes(storage, holding: [])
        }
    }

    /// Every record updated: people a year older, pets' tags swapped in pairs (each
    /// unique value moves to another record of the same commit), dogs of another breed.
    static func updates(of records: [Record]) -> [RecordUpdate] {
        var updated = records
        let pets = records.indices.filter { records[$0].id.entity == "Pet" }
        for pair in stride(from: 0, to: pets.count - 1, by: 2) {
            updated[pets[pair]].attributes[0] = records[pets[pair + 1]].attributes[0]
            updated[pets[pair + 1]].attributes[0] = records[pets[pair]].attributes[0]
        }
        for i in updated.indices {
            switch updated[i].id.entity {
            case "Person":
                if case .int(let age) = updated[i].attributes[1] { updated[i].attributes[1] = .int((age + 1) % 10) }
            case "Dog":
                updated[i].attributes[1] = .string(updated[i].attributes[1] == .string("a") ? "c" : "a")
            default:
                break
            }
        }
        let changed: [String: Set<String>] = ["Person": ["age"], "Pet": ["tag"], "Dog": ["breed"]]
        return updated.map { RecordUpdate(record: $0, changedKeys: changed[$0.id.entity]!) }
    }

    @Test("Large updates move their entries, unique values swapped inside the commit included",
          arguments: MigrationStoreKind.allCases, counts)
    func largeUpdatesMoveTheirEntries(_ kind: MigrationStoreKind, count: Int) throws {
        let records = Self.inserts(count, seed: UInt64(count))
        try Self.withStore(kind, holding: records) { storage in
            let updates = Self.updates(of: records)
            _ = try storage.write(ChangeSet(updates: updates))

            let now = updates.map(\.record)
            try Self.expectWholeIndexes(storage, holding: now)
            for age in [Int64(0), 4] {
                try Self.expectFetch(storage, "Person", "age", .int(age), in: now)
            }
            try Self.expectFetch(storage, "Pet", "tag", .int(Int64(count - 1)), in: now)
        }
    }

    @Test("The first unique value taken twice by updates, in their order, is reported, and nothing is written",
          arguments: MigrationStoreKind.allCases, counts)
    func duplicateUniqueValuesInUpdates(_ kind: MigrationStoreKind, count: Int) throws {
        let records = Self.inserts(count, seed: 3)
        try Self.withStore(kind, holding: records) { storage in
            var updates = Self.updates(of: records)
            let pets = updates.indices.filter { updates[$0].record.id.entity == "Pet" }
            let people = updates.indices.filter { updates[$0].record.id.entity == "Person" }
            // The last person takes the first person's email; the last pet the first pet's new tag.
            updates[people.last!].record.attributes[2] = records[people.first!].attributes[2]
            updates[people.last!].changedKeys.insert("email")
            updates[pets.last!].record.attributes[0] = updates[pets.first!].record.attributes[0]
            let expected = pets.last! < people.last!
                ? StorageError.uniqueConstraintViolation(entity: "Pet", attributes: ["tag"], values: [updates[pets.first!].record.attributes[0]])
                : StorageError.uniqueConstraintViolation(entity: "Person", attributes: ["email"], values: [records[people.first!].attributes[2]])
            let everything = FetchRequest(entity: "Person")
            let before = try storage.read { try $0.fetch(everything).completed(for: everything, schema: Self.schema) }
            #expect(throws: expected) { try storage.write(ChangeSet(updates: updates)) }
            #expect(try storage.read { try $0.fetch(everything).completed(for: everything, schema: Self.schema) } == before)
            var problems: [String] = []
            _ = try #require(storage as? any StorageIntegrityChecking).checkIntegrity { problems.append($0) }
            #expect(problems.isEmpty)
        }
    }
}
