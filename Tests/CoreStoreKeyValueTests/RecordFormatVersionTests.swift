import Foundation
import Testing
import CoreStoreStorage
@testable import CoreStoreKeyValue

/// Stores written by an earlier release (format 1: records without offsets or checksums) keep
/// working, a later format is refused untouched, and a record whose bytes changed on disk is
/// refused by every read path instead of being read as other values.
@Suite("Record format versions: earlier stores read and upgraded, damaged records refused")
struct RecordFormatVersionTests {
    private static let layout = KeyValueLayout(schema: KV.schema)

    /// A store holding Ann (age 3) and Bob (age 40), then rewritten as an earlier release wrote
    /// it: every record in format 1, index entries without checksums, and the store's format 1.
    private static func formatOneStore() throws -> MemoryKeyValueStore {
        let engine = MemoryKeyValueStore()
        let storage = try KV.openStore(engine)
        _ = try storage.write(ChangeSet(inserts: [KV.person(-1, "Ann", age: 3, email: "ann@x"), KV.person(-2, "Bob", age: 40)]))
        storage.close()
        try engine.open()
        try engine.write { writer in
            for pair in try KV.dump(engine) {
                if pair[0].first == KeyValueLayout.recordSpace {
                    try writer.put(pair[0], RecordCodec.encodeUnchecksummed(try RecordCodec.decode(pair[1])))
                } else if pair[0].first == KeyValueLayout.indexSpace {
                    try writer.put(pair[0], [])
                }
            }
            try writer.put(layout.metadataKey("format"), TupleEncoder.encode([.int(1)]))
        }
        engine.close()
        return engine
    }

    private static func storedFormat(_ engine: MemoryKeyValueStore) throws -> Int64? {
        try engine.read { try $0.get(layout.metadataKey("format")) }.flatMap(KeyValueStorage<MemoryKeyValueStore>.formatVersion)
    }

    /// The format version byte of each stored record, by record key.
    private static func recordVersions(_ engine: MemoryKeyValueStore) throws -> [UInt8] {
        try KV.dump(engine).filter { $0[0].first == KeyValueLayout.recordSpace }.map { $0[1][0] }
    }

    private static func names(_ storage: some StorageInterface, _ predicate: RecordPredicate? = nil) throws -> [String] {
        try storage.read { try $0.fetch(FetchRequest(entity: "Person", predicate: predicate)) }.records.map { record in
            guard case .string(let name) = record.attributes[0] else { return "?" }
            return name
        }
    }

    @Test("A format 1 store opens unchanged, reads through every path, and its first commit marks it format 2")
    func formatOneStoreIsReadAndUpgraded() throws {
        let engine = try Self.formatOneStore()
        try engine.open()
        let before = try KV.dump(engine)
        engine.close()
        let storage = KeyValueStorage(engine: engine)
        #expect(try storage.open(schema: KV.schema) == StoredMetadata(modelVersion: "V1", schemaHash: "kv-hash-1"))
        #expect(try KV.dump(engine) == before)
        #expect(try Self.recordVersions(engine) == [1, 1])

        // A whole-record fetch, an attribute read in place (unindexed email), an index, a count
        // with a predicate and a lookup by ID.
        #expect(try Self.names(storage) == ["Ann", "Bob"])
        #expect(try Self.names(storage, .comparison(Comparison("email", .equal, .string("ann@x")))) == ["Ann"])
        #expect(try Self.names(storage, .comparison(Comparison("age", .greater, .int(10)))) == ["Bob"])
        #expect(try storage.read { try $0.count(FetchRequest(entity: "Person", predicate: .comparison(Comparison("email", .equal, .null)))) } == 1)
        #expect(try storage.read { try $0.records([RecordID(entity: "Person", key: 2)]) }.first??.attributes[1] == .int(40))

        _ = try storage.write(ChangeSet(inserts: [KV.person(-1, "Cid", age: 7)]))
        #expect(try Self.storedFormat(engine) == KeyValueLayout.formatVersion)
        // The same write counted the records the earlier format kept no count of.
        #expect(try engine.read { try RecordCounts.stored($0, layout: Self.layout) }?.byRoot == ["Person": 3])
        #expect(try Self.recordVersions(engine) == [1, 1, RecordCodec.formatVersion])
        _ = try storage.write(ChangeSet(updates: [RecordUpdate(record: KV.person(1, "Ann", age: 4, email: "ann@x"), changedKeys: ["age"])]))
        #expect(try Self.recordVersions(engine) == [RecordCodec.formatVersion, 1, RecordCodec.formatVersion])
        #expect(try Self.names(storage, .comparison(Comparison("age", .less, .int(10)))) == ["Ann", "Cid"])
        storage.close()

        let reopened = KeyValueStorage(engine: engine)
        _ = try reopened.open(schema: KV.schema)
        #expect(try Self.names(reopened) == ["Ann", "Bob", "Cid"])
    }

    @Test("A store of a later format version is refused and left as it was")
    func laterFormatIsRefused() throws {
        let engine = MemoryKeyValueStore()
        let storage = try KV.openStore(engine)
        _ = try storage.write(ChangeSet(inserts: [KV.person(-1, "Ann")]))
        storage.close()
        try engine.open()
        try engine.write { try $0.put(Self.layout.metadataKey("format"), TupleEncoder.encode([.int(KeyValueLayout.formatVersion + 1)])) }
        let before = try KV.dump(engine)
        engine.close()
        #expect {
            try KeyValueStorage(engine: engine).open(schema: KV.schema)
        } throws: { error in
            guard case StorageError.incompatibleStore(_, let reason) = error else { return false }
            return reason.contains("format version")
        }
        try engine.open()
        #expect(try KV.dump(engine) == before)
    }

    /// Every read that meets Ann's record: whole fetches, predicates read in place (indexed and
    /// not), counts, aggregates and lookups by ID.
    private static let readsOfAnn: [(String, @Sendable (any StorageReader) throws -> Void)] = [
        ("fetch", { _ = try $0.fetch(FetchRequest(entity: "Person")) }),
        ("fetch, predicate no index bounds", { _ = try $0.fetch(FetchRequest(entity: "Person", predicate: .comparison(Comparison("email", .notEqual, .string("x"))))) }),
        ("fetch, indexed predicate", { _ = try $0.fetch(FetchRequest(entity: "Person", predicate: .comparison(Comparison("age", .equal, .int(3))))) }),
        ("count, predicate", { _ = try $0.count(FetchRequest(entity: "Person", predicate: .comparison(Comparison("score", .greater, .double(0))))) }),
        // Grouped: an ungrouped sum is read from the stored totals, without the records.
        ("aggregate", { _ = try $0.aggregate(AggregateRequest(entity: "Person", terms: [AggregateTerm(.sum, "age")], groupBy: ["name"]), schema: KV.schema) }),
        ("records by ID", { _ = try $0.records([RecordID(entity: "Person", key: 1)]) }),
    ]

    @Test("A changed bit anywhere in a stored record is refused by every read, never read as another value")
    func flippedBitsAreRefused() throws {
        let engine = MemoryKeyValueStore()
        let storage = try KV.openStore(engine)
        _ = try storage.write(ChangeSet(inserts: [KV.person(-1, "Ann", age: 3, email: "ann@x", score: 2.5)]))
        let key = Self.layout.recordKey(entity: "Person", key: 1)
        let intact = try #require(try engine.read { try $0.get(key) })
        var refused = 0
        for bit in 0..<(intact.count * 8) {
            var damaged = intact
            damaged[bit / 8] ^= 1 << (bit % 8)
            try engine.write { try $0.put(key, damaged) }
            for (name, read) in Self.readsOfAnn {
                #expect(throws: StorageError.self, "\(name), bit \(bit)") { try storage.read(read) }
            }
            refused += 1
        }
        #expect(refused == intact.count * 8)
        try engine.write { try $0.put(key, intact) }
        for (_, read) in Self.readsOfAnn { try storage.read(read) }
    }

    /// Reads that together use every index of `Person`: each returns the names it finds.
    private static let indexedReads: [(String, @Sendable (any StorageReader) throws -> [String])] = [
        ("age", { try $0.fetch(FetchRequest(entity: "Person", predicate: .comparison(Comparison("age", .equal, .int(3))))).records.map { "\($0)" } }),
        ("age range", { try $0.fetch(FetchRequest(entity: "Person", predicate: .comparison(Comparison("age", .greater, .int(0))))).records.map { "\($0)" } }),
        ("name", { try $0.fetch(FetchRequest(entity: "Person", predicate: .comparison(Comparison("name", .equal, .string("Ann"))))).records.map { "\($0)" } }),
        ("name and age", { try $0.fetch(FetchRequest(entity: "Person", predicate: .and([
            .comparison(Comparison("name", .equal, .string("Ann"))), .comparison(Comparison("age", .equal, .int(3))),
        ]))).records.map { "\($0)" } }),
        ("name range", { try $0.fetch(FetchRequest(entity: "Person", predicate: .comparison(Comparison("name", .greater, .string(""))))).records.map { "\($0)" } }),
        ("name and age range", { try $0.fetch(FetchRequest(entity: "Person", predicate: .and([
            .comparison(Comparison("name", .equal, .string("Bob"))), .comparison(Comparison("age", .greater, .int(0))),
        ]))).records.map { "\($0)" } }),
        ("email", { try $0.fetch(FetchRequest(entity: "Person", predicate: .comparison(Comparison("email", .equal, .string("ann@x"))))).records.map { "\($0)" } }),
        ("no email", { try $0.fetch(FetchRequest(entity: "Person", predicate: .comparison(Comparison("email", .equal, .null)))).records.map { "\($0)" } }),
        ("score, in order", { try $0.fetch(FetchRequest(entity: "Person", sortDescriptors: [RecordSortDescriptor(key: "score", ascending: true)], limit: 5)).records.map { "\($0)" } }),
    ]

    @Test("An index entry whose key or checksum changed is refused by the reads through its index, never followed")
    func damagedIndexEntriesAreRefused() throws {
        let engine = MemoryKeyValueStore()
        let storage = try KV.openStore(engine)
        _ = try storage.write(ChangeSet(inserts: [KV.person(-1, "Ann", age: 3, email: "ann@x", score: 2.5), KV.person(-2, "Bob", age: 4, score: 1)]))
        let intact = try Self.indexedReads.map { _, read in try storage.read(read) }
        let entries = try KV.dump(engine).filter { $0[0].first == KeyValueLayout.indexSpace }
        #expect(entries.count == 10 && entries.allSatisfy { $0[1].count == 4 })
        var variants = 0
        for entry in entries {
            let (key, value) = (entry[0], entry[1])
            // Every bit of the entry's record key (its last 9 bytes: type code and 8 bytes) and
            // of its checksum.
            let bits = (((key.count - 9) * 8)..<(key.count * 8)).map { (true, $0) } + (0..<32).map { (false, $0) }
            for (inKey, bit) in bits {
                var damagedKey = key, damagedValue = value
                if inKey { damagedKey[bit / 8] ^= 1 << (bit % 8) } else { damagedValue[bit / 8] ^= 1 << (bit % 8) }
                try engine.write { writer in
                    try writer.delete(key)
                    try writer.put(damagedKey, damagedValue)
                }
                var refused = 0
                for (i, (name, read)) in Self.indexedReads.enumerated() {
                    do {
                        let found = try storage.read(read)
                        #expect(found == intact[i], "\(name): entry \(key), \(inKey ? "key" : "value") bit \(bit)")
                    } catch is StorageError {
                        refused += 1
                    }
                }
                #expect(refused > 0, "entry \(key), \(inKey ? "key" : "value") bit \(bit)")
                try engine.write { writer in
                    try writer.delete(damagedKey)
                    try writer.put(key, value)
                }
                variants += 1
            }
        }
        #expect(variants == entries.count * (72 + 32))
        #expect(try Self.indexedReads.map { _, read in try storage.read(read) } == intact)
    }
}
