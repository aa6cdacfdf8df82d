import Foundation
import Testing
import CoreStoreStorage
@testable import CoreStoreKeyValue

/// The generation-aware key layout: generation 0 is the original layout byte for byte, a later
/// generation prefixes every key, and keys of other generations are deleted in bounded writes.
@Suite("KeyValueStorage generations")
struct KeyValueGenerationTests {
    private let person = KV.person(7, "Ann", age: 30, email: "a@x")

    @Test("Generation 0 builds the original keys: no prefix")
    func generationZeroIsTheOriginalLayout() throws {
        let layout = KeyValueLayout(schema: KV.schema)
        #expect(layout.generation == .initial && layout.generation.prefix.isEmpty)
        var format: [UInt8] = [0x01]
        TupleEncoder.encodeString("format", into: &format)
        #expect(layout.metadataKey("format") == format)
        var record: [UInt8] = [0x02]
        TupleEncoder.encodeString("Person", into: &record)
        TupleEncoder.encodeInt(7, into: &record)
        #expect(layout.recordKey(entity: "Person", key: 7) == record)
        let index = try #require(layout.indexes.first { $0.name == "Person|i|age" })
        #expect(layout.entry(of: person, in: index).first == 0x03)
    }

    @Test("A later generation prefixes metadata, records and index entries with 0x10 and its number")
    func laterGenerationsArePrefixed() throws {
        let layout = KeyValueLayout(schema: KV.schema, generation: 258)
        let prefix: [UInt8] = [0x10, 0, 0, 0, 0, 0, 0, 1, 2]
        #expect(layout.generation.prefix == prefix)
        #expect(layout.metadataKey("format") == prefix + KeyValueLayout(schema: KV.schema).metadataKey("format"))
        #expect(layout.recordKey(entity: "Dog", key: 3) == prefix + KeyValueLayout(schema: KV.schema).recordKey(entity: "Pet", key: 3))
        for index in layout.indexes(maintainedBy: "Person") {
            let entry = layout.entry(of: person, in: index)
            #expect(Array(entry.prefix(9)) == prefix)
            #expect(try KeyValueLayout.recordKey(ofEntry: entry) == 7)
            // The entry plans a commit writes build the same bytes.
            let plan = try #require(layout.entryPlans(maintainedBy: "Person").first { $0.index == index })
            #expect(plan.entry(of: person) == entry)
        }
    }

    @Test("A generation's keys form one range, after generation 0 and before the next")
    func generationRangesAreOrderedAndDisjoint() throws {
        let zero = KeyValueGeneration(0), one = KeyValueGeneration(1), two = KeyValueGeneration(2)
        let keys = [zero, one, two].map { KeyValueLayout(schema: KV.schema, generation: $0.number).recordKey(entity: "Person", key: .max) }
        #expect(keys == keys.sorted { $0.lexicographicallyPrecedes($1) })
        for (generation, key) in zip([zero, one, two], keys) {
            #expect(generation.ranges.contains { !key.lexicographicallyPrecedes($0.lower) && key.lexicographicallyPrecedes($0.upper) })
            for other in [zero, one, two] where other != generation {
                #expect(other.otherRanges.contains { !key.lexicographicallyPrecedes($0.lower) && key.lexicographicallyPrecedes($0.upper) })
            }
        }
        #expect(KeyValueGeneration.pointerKey.first == 0x00 && KeyValueGeneration.pointerKey.lexicographicallyPrecedes([0x01]))
    }

    @Test("A damaged generation pointer is an incompatible store")
    func damagedPointer() throws {
        let engine = MemoryKeyValueStore()
        try KV.openStore(engine).close()
        try engine.open()
        try engine.write { try $0.put(KeyValueGeneration.pointerKey, [1, 2, 3]) }
        #expect {
            try KeyValueStorage(engine: engine).open(schema: KV.schema)
        } throws: { error in
            if case StorageError.incompatibleStore = error { return true }
            return false
        }
    }

    @Test("Opening a store without other generations writes nothing")
    func openingWritesNothing() throws {
        let engine = CountingEngine()
        let storage = KeyValueStorage(engine: engine)
        _ = try storage.open(schema: KV.schema)
        _ = try storage.write(ChangeSet(inserts: [KV.person(-1, "Ann")]))
        storage.close()
        let writes = engine.writes
        #expect(try KeyValueStorage(engine: engine).open(schema: KV.schema) != nil)
        #expect(engine.writes == writes)
    }

    @Test("Keys of other generations are deleted in writes of at most the chunk size, resuming where the last one stopped")
    func deletionInChunks() throws {
        let engine = CountingEngine()
        try engine.open()
        let ranges = [KeyRange(lower: [0x01], upper: [0x02]), KeyRange(lower: [0x05], upper: [0x06])]
        try engine.write { writer in
            for i in 0..<7 { try writer.put([0x01, UInt8(i)], []) }
            for i in 0..<4 { try writer.put([0x05, UInt8(i)], []) }
            for key: [UInt8] in [[0x00], [0x02], [0x04, 0xFF], [0x06]] { try writer.put(key, [1]) }
        }
        let before = engine.writes
        try engine.deleteKeys(in: ranges, chunkSize: 3)
        // Range by range: 7 keys as 3 + 3 + 1, then 4 keys as 3 + 1.
        #expect(engine.writes - before == 5)
        let left = try engine.read { reader -> [[UInt8]] in
            var keys: [[UInt8]] = []
            try reader.scan(from: [], to: [], reverse: false) { key, _ in keys.append(key); return true }
            return keys
        }
        #expect(left == [[0x00], [0x02], [0x04, 0xFF], [0x06]])
    }
}

/// A ``MemoryKeyValueStore`` that counts its writes.
private final class CountingEngine: OrderedKeyValueStore, @unchecked Sendable {
    private let base = MemoryKeyValueStore()
    private(set) var writes = 0

    var storeDescription: String { base.storeDescription }
    var isDurable: Bool { base.isDurable }
    func open() throws { try base.open() }
    func read<T>(_ body: (any KeyValueReader) throws -> T) throws -> T { try base.read(body) }
    func write<T>(_ body: (any KeyValueWriter) throws -> T) throws -> T {
        writes += 1
        return try base.write(body)
    }
    func close() { base.close() }
    func destroy() throws { try base.destroy() }
}
