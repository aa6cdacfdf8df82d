/// Entries ranked in ``RecordOrder`` by their sort values and record key. With a `capacity` it
/// keeps only the best `capacity` entries, in order (a bounded top-k: n additions cost about n
/// comparisons plus a binary search for each entry that gets in); without one it keeps all and
/// sorts them at the end. The order is total (record keys are unique), so the kept entries are
/// exactly the first `capacity` of a full sort.
///
/// `RecordSorter.sortedPrefix(_:count:)` ranks records this way, and the key-value tier ranks
/// records it has not decoded yet (the payload is their bytes). Its methods are `@inlinable`, so
/// that each caller's loop is specialized for its payload.
public struct RankedEntries<Payload> {
    @usableFromInline
    struct Entry {
        @usableFromInline var values: [Value]
        @usableFromInline var key: Int64
        @usableFromInline var payload: Payload

        @inlinable
        init(values: [Value], key: Int64, payload: Payload) {
            self.values = values
            self.key = key
            self.payload = payload
        }
    }

    /// The order of the ranking.
    public let order: RecordOrder
    /// How many entries to keep; `nil` keeps all.
    public let capacity: Int?
    /// The kept entries: in order when there is a capacity, in the order added otherwise.
    @usableFromInline
    var entries: [Entry] = []
    /// The last kept entry's first sort value as a number, once the ranking is full and when
    /// that value is an integer or a double other than NaN; ``StoredNumber/other`` otherwise.
    /// What ``ranksAfterKeptEntries(firstNumber:)`` compares with, without reading the entry.
    @usableFromInline
    var boundary: StoredNumber = .other
    /// Whether the first sort key ascends (`true` without sort keys).
    @usableFromInline
    let firstKeyAscends: Bool

    /// ``boundary``, for a scan that skips what ranks after it (the key-value tier's
    /// `RankingCutoff`).
    package var firstValueBoundary: StoredNumber { boundary }

    /// A ranking in `order` keeping at most `capacity` entries (`nil`: all).
    @inlinable
    public init(order: RecordOrder, capacity: Int?) {
        self.order = order
        self.capacity = capacity
        self.firstKeyAscends = order.ascending.first ?? true
        if let capacity { entries.reserveCapacity(capacity + 1) }
    }

    /// Adds the entry with sort values `values` (one per sort key) and record key `key`;
    /// `payload` is made only when the entry is kept.
    @inlinable
    public mutating func add(_ values: [Value], key: Int64, payload: () throws -> Payload) rethrows {
        guard let capacity else {
            entries.append(Entry(values: values, key: key, payload: try payload()))
            return
        }
        guard capacity > 0 else { return }
        if entries.count >= capacity {
            guard let last = entries.last, order.precedes(values, key: key, last.values, key: last.key) else { return }
        }
        var low = 0, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if order.precedes(entries[middle].values, key: entries[middle].key, values, key: key) { low = middle + 1 } else { high = middle }
        }
        entries.insert(Entry(values: values, key: key, payload: try payload()), at: low)
        if entries.count > capacity { entries.removeLast() }
        if entries.count == capacity, order.keyCount > 0 {
            switch entries[capacity - 1].values[0] {
            case .int(let value): boundary = .integer(value)
            case .double(let value) where !value.isNaN: boundary = .double(value)
            default: boundary = .other
            }
        }
    }

    /// Whether a new entry whose first sort value is `first` ranks after every kept entry
    /// whatever its other values: the ranking is full and `first` comes strictly after the last
    /// kept entry's first value. ``collect(_:key:_:)`` returns `false` for such an entry; this
    /// answers from the first value alone, for a scan that reads it cheaply.
    @inlinable
    public func ranksAfterKeptEntries(first: Value) -> Bool {
        guard let capacity, capacity > 0, entries.count >= capacity, order.keyCount > 0 else { return false }
        return order.compare(first, entries[entries.count - 1].values[0], atKey: 0) > 0
    }

    /// ``ranksAfterKeptEntries(first:)`` for a first sort value read as a number straight from
    /// a record's bytes: compared with ``boundary`` when both are integers or both doubles (the
    /// order ``Value/storageOrder(_:_:)`` gives them), through the general comparison otherwise.
    @inlinable
    package func ranksAfterKeptEntries(firstNumber: StoredNumber) -> Bool {
        if let comesAfter = firstNumber.comesStrictlyAfter(boundary, ascending: firstKeyAscends) { return comesAfter }
        switch firstNumber {
        case .integer(let x): return ranksAfterKeptEntries(first: .int(x))
        case .double(let x): return ranksAfterKeptEntries(first: .double(x))
        case .other: return false
        }
    }

    /// Reads a new entry's sort values into `values` (one per sort key, through `value`, which
    /// gets the key's index) and returns whether the entry can be kept. Once the ranking holds
    /// `capacity` entries, it reads them one key at a time and stops as soon as the entry ranks
    /// after the last kept one (returning `false`, with `values` partly read): a limited scan
    /// reads most of its records' first sort value only.
    @inlinable
    public func collect(_ values: inout [Value], key: Int64, _ value: (Int) throws -> Value) rethrows -> Bool {
        var k = 0
        if let capacity, entries.count >= capacity {
            guard capacity > 0 else { return false }
            let last = entries.count - 1
            while k < values.count {
                let v = try value(k)
                let c = order.compare(v, entries[last].values[k], atKey: k)
                values[k] = v
                k += 1
                if c > 0 { return false }
                if c < 0 { break }
                if k == values.count { return RecordOrder.compareKeys(key, entries[last].key) < 0 }
            }
        }
        while k < values.count {
            values[k] = try value(k)
            k += 1
        }
        return true
    }

    /// The payloads of the kept entries, in order.
    @inlinable
    public mutating func payloads() -> [Payload] {
        if capacity == nil {
            let order = self.order
            entries.sort { order.precedes($0.values, key: $0.key, $1.values, key: $1.key) }
        }
        return entries.map(\.payload)
    }
}
