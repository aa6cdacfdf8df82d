import Foundation
import Testing
import CoreStoreStorage
import CoreStoreInMemory
@testable import CoreStoreKeyValue

/// An unordered index fetch reads its records in key order: runs of keys close together by one
/// scan (skipping the records in between), lone keys by lookup. Answers must not change.
@Suite("Index fetches in record-key order")
struct KeyOrderLoadTests {
    /// The reference store and a key-value store holding the same records.
    private func stores(_ records: [Record], deleting deleted: [RecordID] = []) throws -> (InMemoryStore, KeyValueStorage<MemoryKeyValueStore>) {
        let reference = InMemoryStore()
        _ = try reference.open(schema: KV.schema)
        let storage = try KV.openStore()
        for changes in [ChangeSet(inserts: records), ChangeSet(deletes: deleted)] where !changes.inserts.isEmpty || !changes.deletes.isEmpty {
            _ = try reference.write(changes)
            _ = try storage.write(changes)
        }
        return (reference, storage)
    }

    private func expectSameAnswers(_ request: FetchRequest, _ reference: InMemoryStore, _ storage: KeyValueStorage<MemoryKeyValueStore>) throws {
        let expected = try reference.read { try $0.fetch(request).completed(for: request, schema: KV.schema) }
        let actual = try storage.read { try $0.fetch(request).completed(for: request, schema: KV.schema) }
        #expect(actual == expected, "\(request)")
        #expect(!expected.isEmpty)
    }

    @Test("Gaps below, at and above the widest scanned gap, deleted records inside a run, a limit")
    func gapsAndHoles() throws {
        // Keys 1…400 (in insertion order); age 1 at the wanted keys, 2 elsewhere.
        let wanted: Set<Int64> = [1, 2, 3, 5, 13, 22, 23, 24, 25, 26, 27, 40, 48, 57, 200, 201, 399, 400]
        let people = (1...400).map { key in
            KV.person(-key, "p\(key)", age: wanted.contains(key) ? 1 : 2, score: Double(key))
        }
        let gone = [3, 24, 25, 201].map { RecordID(entity: "Person", key: $0) }
        let (reference, storage) = try stores(people, deleting: gone)
        let isOne = RecordPredicate.comparison(Comparison("age", .equal, .int(1)))
        for (limit, offset) in [(nil, 0), (4, 0), (3, 5), (1, 13)] as [(Int?, Int)] {
            try expectSameAnswers(FetchRequest(entity: "Person", predicate: isOne, limit: limit, offset: offset), reference, storage)
        }
        // A predicate beyond the index is tested on the scanned records too.
        let alsoScore = RecordPredicate.and([isOne, .comparison(Comparison("score", .greater, .double(20)))])
        try expectSameAnswers(FetchRequest(entity: "Person", predicate: alsoScore), reference, storage)
        let count = try storage.read { try $0.count(FetchRequest(entity: "Person", predicate: isOne)) }
        #expect(count == wanted.count - gone.count)
    }

    @Test("A sub-entity's index reads the hierarchy's records and keeps only its own")
    func subEntityAmongItsParents() throws {
        // Pets and dogs alternate, so every run of dogs scans across pets.
        var records: [Record] = []
        for i in 1...300 {
            records.append(i % 2 == 0
                ? KV.dog(-Int64(i), "d\(i)", tag: Int64(i), breed: i % 6 == 0 ? "lab" : "pug")
                : KV.pet(-Int64(i), "p\(i)", tag: Int64(i)))
        }
        let (reference, storage) = try stores(records)
        let labs = RecordPredicate.comparison(Comparison("breed", .equal, .string("lab")))
        try expectSameAnswers(FetchRequest(entity: "Dog", predicate: labs), reference, storage)
        let tags = RecordPredicate.comparison(Comparison(["tag"], .between, .list([.int(10), .int(60)])))
        try expectSameAnswers(FetchRequest(entity: "Pet", predicate: tags), reference, storage)
        try expectSameAnswers(FetchRequest(entity: "Pet", includesSubentities: false, predicate: tags), reference, storage)
    }
}
