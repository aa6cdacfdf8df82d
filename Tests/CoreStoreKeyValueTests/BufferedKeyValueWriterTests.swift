import Testing
import CoreStoreStorage
@testable import CoreStoreKeyValue

@Suite("BufferedKeyValueWriter: an overlay that reads its own writes")
struct BufferedKeyValueWriterTests {
    private func randomKey(_ g: inout SeededGenerator) -> [UInt8] {
        (0..<Int.random(in: 0...3, using: &g)).map { _ in UInt8.random(in: 0...4, using: &g) * 60 }
    }

    @Test("Scans merge the snapshot and the overlay, both directions, with early stops")
    func overlayScans() throws {
        var g = SeededGenerator(seed: 2024)
        for _ in 0..<200 {
            let engine = MemoryKeyValueStore()
            try engine.open()
            var model: [[UInt8]: [UInt8]] = [:]
            try engine.write { w in
                for _ in 0..<Int.random(in: 0...15, using: &g) {
                    let key = randomKey(&g), value = [UInt8.random(in: 0...255, using: &g)]
                    try w.put(key, value)
                    model[key] = value
                }
            }
            try engine.read { snapshot in
                let buffer = BufferedKeyValueWriter(base: snapshot)
                for _ in 0..<Int.random(in: 0...15, using: &g) {
                    let key = randomKey(&g)
                    if Bool.random(using: &g) {
                        let value = [UInt8.random(in: 0...255, using: &g)]
                        try buffer.put(key, value)
                        model[key] = value
                    } else {
                        try buffer.delete(key)
                        model[key] = nil
                    }
                }
                for key in model.keys { #expect(try buffer.get(key) == model[key]) }
                let lower = randomKey(&g), upper = Bool.random(using: &g) ? [] : randomKey(&g)
                let expected = model.filter { !$0.key.lexicographicallyPrecedes(lower) && (upper.isEmpty || $0.key.lexicographicallyPrecedes(upper)) }
                    .sorted { $0.key.lexicographicallyPrecedes($1.key) }.map { [$0.key, $0.value] }
                for reverse in [false, true] {
                    let limit = Int.random(in: 0...20, using: &g)
                    var seen: [[[UInt8]]] = []
                    try buffer.scan(from: lower, to: upper, reverse: reverse) { key, value in
                        seen.append([key, value])
                        return seen.count < limit
                    }
                    let all = reverse ? Array(expected.reversed()) : expected
                    #expect(seen == Array(all.prefix(max(limit, 1))).prefix(all.isEmpty ? 0 : max(limit, 1)).map { $0 })
                }
                let operations = buffer.operations
                let keys = operations.map { op -> [UInt8] in
                    switch op {
                    case .put(let key, _), .delete(let key): return key
                    }
                }
                // Every write was followed by reads, so all of them are merged: sorted, once per key.
                #expect(keys == keys.sorted { $0.lexicographicallyPrecedes($1) })
                #expect(Set(keys).count == keys.count)
            }
        }
    }

    @Test("Operations replay the writes: merged ones sorted and once per key, later ones in order")
    func operationsReplayTheWritesInOrder() throws {
        let engine = MemoryKeyValueStore()
        try engine.open()
        try engine.read { snapshot in
            let buffer = BufferedKeyValueWriter(base: snapshot)
            #expect(!buffer.hasPendingOperations)
            try buffer.put([5], [1])
            try buffer.put([0], [2])
            try buffer.delete([5])
            #expect(buffer.hasPendingOperations)
            #expect(buffer.operations == [.put(key: [5], value: [1]), .put(key: [0], value: [2]), .delete(key: [5])])
            // A read merges what came before it: one operation per key, sorted; later writes follow.
            #expect(try buffer.get([5]) == nil)
            try buffer.put([5], [3])
            try buffer.delete([0])
            #expect(buffer.operations == [.put(key: [0], value: [2]), .delete(key: [5]), .put(key: [5], value: [3]), .delete(key: [0])])
            #expect(operationsInPlace(buffer) == buffer.operations)
            #expect(try buffer.get([0]) == nil && buffer.get([5]) == [3])
            #expect(buffer.operations == [.delete(key: [0]), .put(key: [5], value: [3])])
        }
    }

    /// The operations as ``BufferedKeyValueWriter/forEachOperationInPlace(_:)`` lends them.
    private func operationsInPlace(_ buffer: BufferedKeyValueWriter) -> [BufferedKeyValueWriter.Operation] {
        var result: [BufferedKeyValueWriter.Operation] = []
        buffer.forEachOperationInPlace { key, value in
            result.append(value.map { .put(key: Array(key), value: Array($0)) } ?? .delete(key: Array(key)))
        }
        return result
    }

    /// `pairs` after `operations`, applied in order.
    private static func applying(_ operations: [BufferedKeyValueWriter.Operation], to pairs: [[UInt8]: [UInt8]]) -> [[UInt8]: [UInt8]] {
        var pairs = pairs
        for operation in operations {
            switch operation {
            case .put(let key, let value): pairs[key] = value
            case .delete(let key): pairs[key] = nil
            }
        }
        return pairs
    }

    /// Applying `operations` in order to `model` gives what the buffer reads.
    @Test("Applying the operations in order gives what the buffer reads")
    func applyingTheOperationsInOrderGivesWhatTheBufferReads() throws {
        var g = SeededGenerator(seed: 77)
        for _ in 0..<200 {
            let engine = MemoryKeyValueStore()
            try engine.open()
            try engine.read { snapshot in
                let buffer = BufferedKeyValueWriter(base: snapshot)
                var keys: Set<[UInt8]> = []
                for _ in 0..<Int.random(in: 0...20, using: &g) {
                    let key = randomKey(&g)
                    keys.insert(key)
                    switch Int.random(in: 0..<4, using: &g) {
                    case 0: try buffer.put(key, [UInt8.random(in: 0...255, using: &g)])
                    case 1:
                        let value = (0..<Int.random(in: 0...2, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) }
                        try key.withUnsafeBytes { key in try value.withUnsafeBytes { try buffer.put(keyBytes: key, valueBytes: $0) } }
                    case 2: try buffer.delete(key)
                    default: _ = try buffer.get(key)
                    }
                    if Int.random(in: 0..<5, using: &g) == 0 { #expect(operationsInPlace(buffer) == buffer.operations) }
                }
                #expect(operationsInPlace(buffer) == buffer.operations)
                let applied = Self.applying(buffer.operations, to: [:])
                for key in keys { #expect(try buffer.get(key) == applied[key]) }
            }
        }
    }
    /// A batch that keeps its writes in an array, standing in for an engine's.
    final class RecordingBatch: KeyValueWriteBatch {
        var writes: [BufferedKeyValueWriter.Operation] = []

        func put(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
            writes.append(.put(key: Array(key), value: Array(value)))
        }

        func delete(key: UnsafeRawBufferPointer) {
            writes.append(.delete(key: Array(key)))
        }

        func forEach(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer?) -> Void) {
            for write in writes {
                switch write {
                case .put(let key, let value): key.withUnsafeBytes { key in value.withUnsafeBytes { body(key, $0) } }
                case .delete(let key): key.withUnsafeBytes { body($0, nil) }
                }
            }
        }
    }

    /// A writer that fills the engine's batches: each run of writes between reads goes into a
    /// batch of its own, the batches hold every write in order, and reads see all of them.
    @Test("Writes go straight into the engine's batches, one per run between reads")
    func writesGoIntoTheEnginesBatches() throws {
        let engine = MemoryKeyValueStore()
        try engine.open()
        try engine.write { try $0.put([7], [70]) }
        try engine.read { snapshot in
            let buffer = BufferedKeyValueWriter(base: snapshot, batches: { RecordingBatch() })
            #expect(!buffer.hasPendingOperations && buffer.writeBatches.isEmpty)
            #expect(try buffer.get([7]) == [70])
            #expect(buffer.writeBatches.isEmpty, "a read before any write opens no batch")
            try buffer.put([5], [1])
            try ([0] as [UInt8]).withUnsafeBytes { key in try ([2] as [UInt8]).withUnsafeBytes { try buffer.put(keyBytes: key, valueBytes: $0) } }
            try buffer.delete([7])
            #expect(buffer.writeBatches.count == 1)
            #expect(try buffer.get([5]) == [1] && buffer.get([0]) == [2] && buffer.get([7]) == nil)
            try buffer.put([5], [3])
            try buffer.put([9], [])
            #expect(buffer.writeBatches.count == 2)
            let batches = try buffer.writeBatches.map { try #require($0 as? RecordingBatch).writes }
            #expect(batches == [
                [.put(key: [5], value: [1]), .put(key: [0], value: [2]), .delete(key: [7])],
                [.put(key: [5], value: [3]), .put(key: [9], value: [])],
            ])
            #expect(buffer.operations == batches.flatMap { $0 })
            #expect(operationsInPlace(buffer) == buffer.operations)
            #expect(try buffer.get([5]) == [3] && buffer.get([9]) == [] && buffer.get([7]) == nil)
            var scanned: [[UInt8]] = []
            try buffer.scan(from: [], to: [], reverse: false) { key, _ in scanned.append(key); return true }
            #expect(scanned == [[0], [5], [9]])
        }
    }

    /// Random writes and reads through a writer that fills batches: replaying its batches in
    /// order gives what it reads, as for a writer with a log of its own.
    @Test("Replaying the engine's batches in order gives what the buffer reads")
    func replayingTheBatchesGivesWhatTheBufferReads() throws {
        var g = SeededGenerator(seed: 91)
        for _ in 0..<200 {
            let engine = MemoryKeyValueStore()
            try engine.open()
            try engine.write { w in
                for key in 0..<4 as Range<UInt8> { try w.put([key * 60], [key]) }
            }
            try engine.read { snapshot in
                let buffer = BufferedKeyValueWriter(base: snapshot, batches: { RecordingBatch() })
                var model: [[UInt8]: [UInt8]] = [[0]: [0], [60]: [1], [120]: [2], [180]: [3]]
                var keys = Set(model.keys)
                for _ in 0..<Int.random(in: 0...20, using: &g) {
                    let key = randomKey(&g)
                    keys.insert(key)
                    switch Int.random(in: 0..<3, using: &g) {
                    case 0:
                        let value = [UInt8.random(in: 0...255, using: &g)]
                        try buffer.put(key, value)
                        model[key] = value
                    case 1:
                        try buffer.delete(key)
                        model[key] = nil
                    default:
                        #expect(try buffer.get(key) == model[key])
                    }
                }
                let writes = try buffer.writeBatches.flatMap { try #require($0 as? RecordingBatch).writes }
                let applied = Self.applying(writes, to: [[0]: [0], [60]: [1], [120]: [2], [180]: [3]])
                for key in keys {
                    #expect(applied[key] == model[key])
                    #expect(try buffer.get(key) == model[key])
                }
            }
        }
    }
}
