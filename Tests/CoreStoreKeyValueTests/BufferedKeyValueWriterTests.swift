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
                #expect(keys == keys.sorted { $0.lexicographicallyPrecedes($1) })
                #expect(Set(keys).count == keys.count)
            }
        }
    }

    @Test("Writes with no read between them come out sorted, one per key, each its last write")
    func unreadWritesComeOutSortedAndDeduplicated() throws {
        let engine = MemoryKeyValueStore()
        try engine.open()
        try engine.read { snapshot in
            let buffer = BufferedKeyValueWriter(base: snapshot)
            try buffer.put([5], [1])
            try buffer.put([0], [2])
            try buffer.delete([5])
            try buffer.put([5], [3])
            try buffer.put([9, 9], [4])
            try buffer.delete([9, 9])
            try buffer.put([0], [5])
            #expect(buffer.operations == [.put(key: [0], value: [5]), .put(key: [5], value: [3]), .delete(key: [9, 9])])
            // A read merges the log; later writes still win.
            #expect(try buffer.get([5]) == [3])
            try buffer.put([5], [6])
            try buffer.delete([0])
            #expect(buffer.operations == [.delete(key: [0]), .put(key: [5], value: [6]), .delete(key: [9, 9])])
        }
    }
}
