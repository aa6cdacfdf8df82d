import Testing
@testable import CoreStore

/// ``ChunkedArray`` behaves as an `Array` under any sequence of inserts, removals and writes,
/// across chunk splits and chunks that empty.
@Suite("ChunkedArray")
struct ChunkedArrayTests {
    /// A fixed-seed generator: the same operations on every run.
    private struct Numbers {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    private func expectSame(_ chunked: ChunkedArray<Int>, _ array: [Int], _ step: String) {
        #expect(chunked.count == array.count, "\(step)")
        #expect(Array(chunked) == array, "iteration after \(step)")
        #expect(chunked.indices.map { chunked[$0] } == array, "subscript after \(step)")
    }

    @Test("Random inserts, removals and writes match an Array", arguments: [0, 1, 700, 3000])
    func randomOperations(initialCount: Int) {
        let chunk = ChunkedArray<Int>.maximumChunk
        var numbers = Numbers(state: UInt64(initialCount) + 7)
        var array = Array(0..<initialCount)
        var chunked = ChunkedArray(array)
        expectSame(chunked, array, "init")
        var nextValue = initialCount
        for step in 0..<4000 {
            switch numbers.next(10) {
            case 0...4:
                // Inserts cluster at one place now and then, so that one chunk splits repeatedly.
                let index = step % 500 < 100 ? min(array.count, 3) : numbers.next(array.count + 1)
                array.insert(nextValue, at: index)
                chunked.insert(nextValue, at: index)
                nextValue += 1
            case 5...7:
                guard !array.isEmpty else { continue }
                // Removals sweep one region now and then, so that chunks empty out.
                let index = step % 700 < 150 ? min(array.count - 1, chunk + 1) : numbers.next(array.count)
                #expect(chunked.remove(at: index) == array.remove(at: index))
            default:
                guard !array.isEmpty else { continue }
                let index = numbers.next(array.count)
                array[index] = -nextValue
                chunked[index] = -nextValue
                nextValue += 1
            }
            if step % 250 == 0 { expectSame(chunked, array, "step \(step)") }
        }
        expectSame(chunked, array, "the last step")
        // Down to nothing and up again.
        while !array.isEmpty {
            #expect(chunked.remove(at: 0) == array.removeFirst())
        }
        expectSame(chunked, array, "removing everything")
        for value in 0..<(chunk * 2 + 3) { chunked.insert(value, at: chunked.count) }
        expectSame(chunked, Array(0..<(chunk * 2 + 3)), "appending after emptying")
    }

    @Test("Appends at the end split the last chunk; the elements stay in order")
    func appendsAtTheEnd() {
        var chunked = ChunkedArray<Int>()
        let total = ChunkedArray<Int>.maximumChunk * 5 + 17
        for value in 0..<total { chunked.insert(value, at: chunked.count) }
        expectSame(chunked, Array(0..<total), "appending")
        // Slices read through the subscript.
        #expect(Array(chunked[1000..<1010]) == Array(1000..<1010))
    }
}
