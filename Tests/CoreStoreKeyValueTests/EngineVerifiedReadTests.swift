import Foundation
import Testing
import CoreStoreStorage
@testable import CoreStoreKeyValue

/// An engine whose reads say they verified the stored bytes themselves (as LevelDB's do, with
/// `verify_checksums`): a ``MemoryKeyValueStore`` whose readers report
/// ``KeyValueReader/verifiesStoredBytes``.
private final class SelfVerifyingEngine: OrderedKeyValueStore, @unchecked Sendable {
    let base: MemoryKeyValueStore

    init(base: MemoryKeyValueStore) {
        self.base = base
    }

    var storeDescription: String { "self-verifying \(base.storeDescription)" }
    var isDurable: Bool { base.isDurable }
    func open() throws { try base.open() }
    func read<T>(_ body: (any KeyValueReader) throws -> T) throws -> T {
        try base.read { try body(SelfVerifyingReader(base: $0)) }
    }
    func write<T>(_ body: (any KeyValueWriter) throws -> T) throws -> T { try base.write(body) }
    func close() { base.close() }
    func destroy() throws { try base.destroy() }
}

/// A reader that forwards to `base` and says it verified what it returns.
private struct SelfVerifyingReader: KeyValueReader {
    let base: any KeyValueReader

    var verifiesStoredBytes: Bool { true }
    func get(_ key: [UInt8]) throws -> [UInt8]? { try base.get(key) }
    func scan(from lowerBound: [UInt8], to upperBound: [UInt8], reverse: Bool, _ visit: ([UInt8], [UInt8]) throws -> Bool) throws {
        try base.scan(from: lowerBound, to: upperBound, reverse: reverse, visit)
    }
    func scanValues(from lowerBound: [UInt8], to upperBound: [UInt8], _ visit: (UnsafeRawBufferPointer) throws -> Bool) throws {
        try base.scanValues(from: lowerBound, to: upperBound, visit)
    }
    func scanPairs(from lowerBound: [UInt8], to upperBound: [UInt8], _ visit: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try base.scanPairs(from: lowerBound, to: upperBound, visit)
    }
    func withValue(_ key: [UInt8], _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        try base.withValue(key, body)
    }
}

/// The key-value tier checks its own record and index-entry checksums unless the engine's reader
/// verified the bytes itself; the integrity check verifies them either way.
@Suite("Reads through an engine that verifies its own bytes")
struct EngineVerifiedReadTests {
    private static let layout = KeyValueLayout(schema: KV.schema)

    /// Reads of Ann through the paths that check a checksum: a scan, an index equality, an
    /// index-only count, a lookup by ID, a grouped aggregate over records and one over an index.
    private static let reads: [(String, @Sendable (any StorageReader) throws -> String)] = [
        ("scan", { try $0.fetch(FetchRequest(entity: "Person", predicate: .comparison(Comparison("email", .equal, .string("ann@x"))))).records.map { "\($0.attributes)" }.joined() }),
        ("index", { try $0.fetch(FetchRequest(entity: "Person", predicate: .comparison(Comparison("age", .equal, .int(3))))).records.map { "\($0.attributes)" }.joined() }),
        ("index count", { "\(try $0.count(FetchRequest(entity: "Person", predicate: .comparison(Comparison("age", .equal, .int(3))))))" }),
        ("by ID", { "\(try $0.records([RecordID(entity: "Person", key: 1)]).map { $0?.attributes ?? [] })" }),
        ("grouped", { "\(try $0.aggregate(AggregateRequest(entity: "Person", terms: [AggregateTerm(.value, "age"), AggregateTerm(.sum, "score")], groupBy: ["age"]), schema: KV.schema))" }),
        ("index groups", { "\(try $0.aggregate(AggregateRequest(entity: "Person", predicate: .comparison(Comparison("age", .less, .int(10))), terms: [AggregateTerm(.value, "age"), AggregateTerm(.count, "age")], groupBy: ["age"]), schema: KV.schema))" }),
    ]

    /// A store of Ann and Bob in which only the checksums of Ann's record and of her index
    /// entries changed: every value is as written.
    private static func storeWithChangedChecksums() throws -> MemoryKeyValueStore {
        let engine = MemoryKeyValueStore()
        let storage = try KV.openStore(engine)
        _ = try storage.write(ChangeSet(inserts: [KV.person(-1, "Ann", age: 3, email: "ann@x", score: 2.5), KV.person(-2, "Bob", age: 40, score: 1)]))
        storage.close()
        try engine.open()
        let recordKey = layout.recordKey(entity: "Person", key: 1)
        let annsEntries = try KV.dump(engine).filter { pair in
            try pair[0].first == KeyValueLayout.indexSpace && KeyValueLayout.recordKey(ofEntry: pair[0]) == 1
        }
        // name, age, score, (name, age) and the unique email.
        #expect(annsEntries.count == 5 && annsEntries.allSatisfy { $0[1].count == 4 })
        try engine.write { writer in
            var record = try #require(try writer.get(recordKey))
            record[record.count - 1] ^= 0x01
            try writer.put(recordKey, record)
            for entry in annsEntries {
                var checksum = entry[1]
                checksum[0] ^= 0x80
                try writer.put(entry[0], checksum)
            }
        }
        engine.close()
        return engine
    }

    @Test("A reader that does not verify: each read through a changed checksum is refused")
    func changedChecksumsAreRefused() throws {
        let engine = try Self.storeWithChangedChecksums()
        let storage = KeyValueStorage(engine: engine)
        _ = try storage.open(schema: KV.schema)
        defer { storage.close() }
        for (name, read) in Self.reads {
            #expect(throws: StorageError.self, "\(name)") { try storage.read(read) }
        }
    }

    @Test("A reader that verified its bytes is trusted with them; the integrity check still reports both checksums")
    func aVerifyingReaderIsTrusted() throws {
        let engine = try Self.storeWithChangedChecksums()
        // The same reads on an intact copy of the store are the expected answers.
        let intact = try KV.openStore()
        _ = try intact.write(ChangeSet(inserts: [KV.person(-1, "Ann", age: 3, email: "ann@x", score: 2.5), KV.person(-2, "Bob", age: 40, score: 1)]))
        let expected = try Self.reads.map { _, read in try intact.read(read) }

        let storage = KeyValueStorage(engine: SelfVerifyingEngine(base: engine))
        _ = try storage.open(schema: KV.schema)
        defer { storage.close() }
        for (i, (name, read)) in Self.reads.enumerated() {
            #expect(try storage.read(read) == expected[i], "\(name)")
        }
        var problems: [String] = []
        _ = try storage.checkIntegrity { problems.append($0) }
        #expect(problems.contains { $0.contains("record") && $0.contains("checksum") }, "\(problems)")
        #expect(problems.contains { $0.contains("index entry") && $0.contains("checksum") }, "\(problems)")
    }
}
