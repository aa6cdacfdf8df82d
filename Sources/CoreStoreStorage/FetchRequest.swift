/// A request for records of one entity: filter, order and window.
public struct FetchRequest: Sendable, Hashable {
    /// The entity to fetch.
    public var entity: String
    /// Whether records of sub-entities are included (they are by default).
    public var includesSubentities: Bool
    /// The filter; `nil` keeps every record.
    public var predicate: RecordPredicate?
    /// Sort keys, most significant first. Ties, and fetches without sort keys, are ordered by
    /// record key, so every backend returns the same sequence.
    public var sortDescriptors: [RecordSortDescriptor]
    /// At most this many records (after `offset`); `nil` means no limit.
    public var limit: Int?
    /// Skip this many records first.
    public var offset: Int
    /// Keys of records whose values the asker already holds (empty by default). A backend
    /// that leaves no stage pending (``FetchResult/pending`` empty) may answer such a record
    /// with its identifier alone: its concrete entity and key, with no attribute and no
    /// relationship values. Reading the hint is optional; every other record comes back whole.
    public var knownRecords: KnownRecordKeys

    /// Creates a request.
    public init(
        entity: String, includesSubentities: Bool = true, predicate: RecordPredicate? = nil,
        sortDescriptors: [RecordSortDescriptor] = [], limit: Int? = nil, offset: Int = 0,
        knownRecords: KnownRecordKeys = KnownRecordKeys()
    ) {
        self.entity = entity
        self.includesSubentities = includesSubentities
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.limit = limit
        self.offset = offset
        self.knownRecords = knownRecords
    }

    /// The parts of a request a backend may leave to the core.
    public struct Stages: OptionSet, Sendable, Hashable {
        /// The raw bits.
        public let rawValue: UInt8
        /// Creates stages from raw bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// The predicate was not applied: the records are a superset.
        public static let filter = Stages(rawValue: 1)
        /// The records are not in the requested order.
        public static let sort = Stages(rawValue: 2)
        /// Offset and limit were not applied.
        public static let window = Stages(rawValue: 4)
        /// Nothing was applied.
        public static let all: Stages = [.filter, .sort, .window]
    }
}

/// Records returned by ``StorageReader/fetch(_:)``, and which parts of the request are left.
///
/// A backend that leaves `.filter` or `.sort` pending must leave `.window` pending too.
public struct FetchResult: Sendable {
    /// The records.
    public var records: [Record]
    /// What the core still has to do with ``FetchResult/completed(for:schema:)``.
    public var pending: FetchRequest.Stages

    /// Creates a result.
    public init(records: [Record], pending: FetchRequest.Stages = []) {
        self.records = records
        self.pending = pending
    }

    /// Applies the pending stages with the reference semantics and returns the final records.
    public func completed(for request: FetchRequest, schema: StoreSchema) throws -> [Record] {
        var records = self.records
        var pending = self.pending
        if !pending.isEmpty, !pending.contains(.window), pending.contains(.filter) || pending.contains(.sort) {
            throw StorageError.invalidRequest("a backend applied offset/limit before filtering or sorting")
        }
        if pending.contains(.filter), let predicate = request.predicate {
            let evaluator = PredicateEvaluator(schema: schema)
            records = try records.filter { try evaluator.evaluate(predicate, on: $0) }
        }
        if pending.contains(.sort) {
            try RecordSorter(schema: schema, sortDescriptors: request.sortDescriptors).sort(&records)
            pending.remove(.sort)
        }
        if pending.contains(.window) {
            records = RecordWindow.apply(records, offset: request.offset, limit: request.limit)
        }
        return records
    }
}

/// Offset + limit applied to an array.
public enum RecordWindow {
    /// The slice of `elements` after skipping `offset`, at most `limit` long.
    public static func apply<T>(_ elements: [T], offset: Int, limit: Int?) -> [T] {
        let window = indexes(count: elements.count, offset: offset, limit: limit)
        if window.count == elements.count { return elements }
        return Array(elements[window])
    }

    /// The positions, among `count` elements, that remain after skipping `offset` and keeping
    /// at most `limit`.
    public static func indexes(count: Int, offset: Int, limit: Int?) -> Range<Int> {
        let start = min(max(offset, 0), count)
        var end = count
        if let limit { end = min(end, start + max(limit, 0)) }
        return start..<end
    }
}
