/// An array kept in chunks of at most ``maximumChunk`` elements, so that inserting or removing
/// one element moves the elements of its chunk only, not every element after it.
///
/// A monitored list of 100,000 members is one: a member whose sort value changed moves from
/// one place to another, which in a plain array shifted every member in between (a third of
/// the list on average, over a megabyte). Here that costs the two chunks' shifts and an update
/// of the chunk start offsets. Reading element `i` finds its chunk by binary search over those
/// offsets; iterating walks the chunks in order.
struct ChunkedArray<Element>: RandomAccessCollection, MutableCollection {
    /// A chunk is split in two when an insert makes it longer than this.
    static var maximumChunk: Int { 512 }

    /// The chunks, none empty (the empty array has none).
    private var chunks: [[Element]] = []
    /// The index of each chunk's first element.
    private var starts: [Int] = []
    /// The number of elements.
    private(set) var count = 0

    /// An empty array.
    init() {}

    /// The elements of `elements`, in order.
    init<S: Sequence>(_ elements: S) where S.Element == Element {
        var chunk: [Element] = []
        chunk.reserveCapacity(Self.maximumChunk)
        for element in elements {
            chunk.append(element)
            if chunk.count == Self.maximumChunk {
                appendChunk(chunk)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        if !chunk.isEmpty { appendChunk(chunk) }
    }

    private mutating func appendChunk(_ chunk: [Element]) {
        starts.append(count)
        chunks.append(chunk)
        count += chunk.count
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    /// The chunk holding element `index` (`0 ..< count`) and the element's offset in it.
    @inline(__always)
    private func locate(_ index: Int) -> (chunk: Int, offset: Int) {
        precondition(index >= 0 && index < count, "index \(index) out of range 0..<\(count)")
        var low = 0, high = starts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if starts[mid] <= index { low = mid } else { high = mid - 1 }
        }
        return (low, index - starts[low])
    }

    subscript(index: Int) -> Element {
        get {
            let (chunk, offset) = locate(index)
            return chunks[chunk][offset]
        }
        set {
            let (chunk, offset) = locate(index)
            chunks[chunk][offset] = newValue
        }
    }

    /// Inserts `element` so that it becomes element `index` (`0 ... count`).
    mutating func insert(_ element: Element, at index: Int) {
        precondition(index >= 0 && index <= count, "insertion index \(index) out of range 0...\(count)")
        if chunks.isEmpty {
            appendChunk([element])
            return
        }
        // At the end of the array: the last chunk; otherwise the chunk of the element now there.
        let (chunk, offset) = index == count ? (chunks.count - 1, chunks[chunks.count - 1].count) : locate(index)
        chunks[chunk].insert(element, at: offset)
        count += 1
        for later in (chunk + 1)..<starts.count { starts[later] += 1 }
        if chunks[chunk].count > Self.maximumChunk { split(chunk) }
    }

    /// Removes and returns element `index`.
    @discardableResult
    mutating func remove(at index: Int) -> Element {
        let (chunk, offset) = locate(index)
        let element = chunks[chunk].remove(at: offset)
        count -= 1
        for later in (chunk + 1)..<starts.count { starts[later] -= 1 }
        if chunks[chunk].isEmpty {
            chunks.remove(at: chunk)
            starts.remove(at: chunk)
        }
        return element
    }

    /// Splits chunk `chunk` into two halves.
    private mutating func split(_ chunk: Int) {
        let half = chunks[chunk].count / 2
        let upper = Array(chunks[chunk][half...])
        chunks[chunk].removeSubrange(half...)
        chunks.insert(upper, at: chunk + 1)
        starts.insert(starts[chunk] + half, at: chunk + 1)
    }

    /// Walks the chunks in order.
    struct Iterator: IteratorProtocol {
        private let chunks: [[Element]]
        private var chunk = 0
        private var offset = 0

        fileprivate init(_ chunks: [[Element]]) {
            self.chunks = chunks
        }

        mutating func next() -> Element? {
            while chunk < chunks.count {
                if offset < chunks[chunk].count {
                    defer { offset += 1 }
                    return chunks[chunk][offset]
                }
                chunk += 1
                offset = 0
            }
            return nil
        }
    }

    func makeIterator() -> Iterator {
        Iterator(chunks)
    }
}
