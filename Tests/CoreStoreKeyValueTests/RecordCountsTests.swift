import Foundation
import Testing
import CoreStoreStorage
@testable import CoreStoreKeyValue

/// The record count each hierarchy keeps in the value of the `sequence` counter: every commit
/// keeps it equal to the records stored, a count of a whole hierarchy reads it instead of the
/// keys, a generation without it is counted by its first commit, and a wrong or damaged one is
/// reported, never taken for a good one by the integrity check.
@Suite("Record counts kept by commits")
struct RecordCountsTests {
    private typealias Storage = KeyValueStorage<MemoryKeyValueStore>

    private static let layout = KeyValueLayout(schema: KV.schema)

    private static func stored(_ engine: MemoryKeyValueStore) throws -> RecordCounts? {
        try engine.read { try RecordCounts.stored($0, layout: layout) }
    }

    private static func scanned(_ engine: MemoryKeyValueStore) throws -> RecordCounts {
        try engine.read { try RecordCounts.counted($0, layout: layout) }
    }

    /// The stored sequence number.
    private static func sequence(_ engine: MemoryKeyValueStore) throws -> Int64 {
        let bytes = try engine.read { try $0.get(layout.sequenceCounterKey) }
        var decoder = TupleDecoder(bytes ?? [])
        guard bytes != nil, case .int(let sequence) = try decoder.next() else {
            Issue.record("no sequence counter")
            return -1
        }
        return sequence
    }

    /// Replaces what follows the sequence number in its counter with `values`.
    private static func storeAfterSequence(_ values: [Value], in engine: MemoryKeyValueStore) throws {
        let sequence = try Self.sequence(engine)
        try engine.write { try $0.put(layout.sequenceCounterKey, TupleEncoder.encode([.int(sequence)] + values)) }
    }

    private static func count(_ storage: Storage, _ entity: String, includesSubentities: Bool = true, limit: Int? = nil, offset: Int = 0) throws -> Int {
        try storage.read { try $0.count(FetchRequest(entity: entity, includesSubentities: includesSubentities, limit: limit, offset: offset)) }
    }

    /// Inserts `people` people and `dogs` dogs with temporary keys; returns their permanent IDs.
    private static func insert(_ storage: Storage, people: Int, dogs: Int, pets: Int = 0) throws -> [RecordID] {
        var inserts = (0..<people).map { KV.person(Int64(-1 - $0), "P\($0)", age: Int64($0)) }
        inserts += (0..<dogs).map { KV.dog(Int64(-1000 - $0), "D\($0)", breed: "b\($0 % 3)") }
        inserts += (0..<pets).map { KV.pet(Int64(-2000 - $0), "Q\($0)") }
        let info = try storage.write(ChangeSet(inserts: inserts))
        return inserts.compactMap { info.permanentIDs[$0.id] }
    }

    @Test("Inserts and deletes across commits keep each hierarchy's count equal to its records")
    func commitsKeepCounts() throws {
        let engine = MemoryKeyValueStore()
        let storage = try KV.openStore(engine)
        let first = try Self.insert(storage, people: 7, dogs: 4, pets: 2)
        #expect(try Self.stored(engine)?.byRoot == ["Person": 7, "Pet": 6])
        let deleted = first.filter { $0.entity == "Dog" }.prefix(3) + first.filter { $0.entity == "Person" }.prefix(2)
        _ = try storage.write(ChangeSet(deletes: Array(deleted)))
        #expect(try Self.stored(engine)?.byRoot == ["Person": 5, "Pet": 3])
        // An update changes no count; deleting the last people removes their entry.
        _ = try storage.write(ChangeSet(updates: [RecordUpdate(record: KV.person(first[2].key, "Renamed", age: 2), changedKeys: ["name"])]))
        _ = try storage.write(ChangeSet(deletes: first.filter { $0.entity == "Person" }.dropFirst(2).map { $0 }))
        #expect(try Self.stored(engine)?.byRoot == ["Pet": 3])
        #expect(try Self.stored(engine) == Self.scanned(engine))
        #expect(try Self.count(storage, "Person") == 0)
        #expect(try Self.count(storage, "Pet") == 3)
        // Not a whole hierarchy: the records are read, and give the same answers.
        #expect(try Self.count(storage, "Dog") == 1)
        #expect(try Self.count(storage, "Pet", includesSubentities: false) == 2)
        #expect(try KV.integrityProblems(storage).isEmpty)

        // Reopened, the counts are read back, and commits go on from them.
        storage.close()
        let reopened = try KV.openStore(engine)
        _ = try Self.insert(reopened, people: 2, dogs: 0)
        #expect(try Self.stored(engine)?.byRoot == ["Person": 2, "Pet": 3])
        #expect(try Self.count(reopened, "Person") == 2)
    }

    @Test("A count of a whole hierarchy reads the stored count, within its window")
    func countsReadTheStoredValue() throws {
        let engine = MemoryKeyValueStore()
        let storage = try KV.openStore(engine)
        _ = try Self.insert(storage, people: 10, dogs: 0)
        #expect(try Self.count(storage, "Person", limit: 3, offset: 1) == 3)
        #expect(try Self.count(storage, "Person", limit: 30, offset: 8) == 2)
        #expect(try Self.count(storage, "Person", limit: 0) == 0)
        // A stored count that disagrees with the keys is what the count answers (no key is
        // read), and what the integrity check reports.
        try Self.storeAfterSequence([.int(1), .string("Person"), .int(12)], in: engine)
        #expect(try Self.count(storage, "Person") == 12)
        #expect(try KV.integrityProblems(storage) == ["Person hierarchy: its stored record count is 12, but it holds 10 records"])
    }

    @Test("A generation without counts is counted from its keys, and its first commit stores them")
    func missingCountsAreCounted() throws {
        let engine = MemoryKeyValueStore()
        let storage = try KV.openStore(engine)
        _ = try Self.insert(storage, people: 4, dogs: 3)
        // As a store written before format version 3 has it: the sequence alone.
        let sequence = try Self.sequence(engine)
        try Self.storeAfterSequence([], in: engine)
        storage.close()
        let reopened = try KV.openStore(engine)
        #expect(try Self.stored(engine) == nil)
        #expect(try Self.count(reopened, "Person") == 4)
        #expect(try Self.count(reopened, "Pet") == 3)
        #expect(try KV.integrityProblems(reopened).isEmpty)
        // A commit that changes no count stores them all the same.
        _ = try reopened.write(ChangeSet(metadata: StoredMetadata(modelVersion: "V1", schemaHash: "kv-hash-1")))
        #expect(try Self.stored(engine)?.byRoot == ["Person": 4, "Pet": 3])
        #expect(try Self.sequence(engine) == sequence + 1)
    }

    @Test("Damaged counts throw a clear error on a count and are reported by the integrity check", arguments: [
        [.string("Person")],
        [.int(1), .string("Person")],
        [.int(1), .string("Person"), .int(-2)],
        [.int(1), .int(3), .string("Person")],
        [.int(2), .string("Person"), .int(1), .string("Person"), .int(2)],
        [.int(2), .string("Pet"), .int(1), .string("Person"), .int(2)],
        [.int(-1)],
    ] as [[Value]])
    func damagedCounts(_ values: [Value]) throws {
        let engine = MemoryKeyValueStore()
        let storage = try KV.openStore(engine)
        _ = try Self.insert(storage, people: 2, dogs: 0)
        try Self.storeAfterSequence(values, in: engine)
        do {
            _ = try Self.count(storage, "Person")
            Issue.record("a count over damaged record counts returned")
        } catch let error as StorageError {
            guard case .engine(let code, let message) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(code == KeyValueFormatError.damagedDataCode)
            #expect(message.contains("damaged record counts"))
        }
        // The attribute totals follow the counts in the same value: they cannot be read either.
        let problems = try KV.integrityProblems(storage)
        #expect(problems.count == 2 && problems[0].hasPrefix("the record counts cannot be read")
            && problems[1].hasPrefix("the attribute totals cannot be read"), "\(problems)")
    }

    @Test("Deltas fold into counts per root, dropping roots that reach zero")
    func deltasFold() throws {
        var deltas = RecordCountDeltas()
        for _ in 0..<3 { deltas.add(1, entity: "Dog") }
        deltas.add(1, entity: "Person")
        deltas.add(-1, entity: "Dog")
        deltas.add(1, entity: "Pet")
        var met: [String] = []
        deltas.forEach { entity, _ in met.append(entity) }
        #expect(met == ["Dog", "Person", "Pet"])
        var counts = RecordCounts()
        counts.apply(deltas, schema: KV.schema)
        #expect(counts.byRoot == ["Person": 1, "Pet": 3])
        var removal = RecordCountDeltas()
        removal.add(-1, entity: "Person")
        counts.apply(removal, schema: KV.schema)
        #expect(counts.byRoot == ["Pet": 3])
        #expect(try RecordCounts.decode(counterValue: counts.counterValue(sequence: 7)) == counts)
        #expect(try RecordCounts.decode(counterValue: RecordCounts().counterValue(sequence: 7)) == RecordCounts())
        #expect(try RecordCounts.decode(counterValue: TupleEncoder.encodeInt(7)) == nil)
    }
}
