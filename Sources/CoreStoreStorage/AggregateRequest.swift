/// A request for raw values and aggregates of one entity's records, answered with positional
/// rows (one column per ``AggregateTerm``) instead of records.
///
/// The user API builds these from `Select` and `GroupBy` clauses. ``AggregateEvaluator`` defines
/// what a request means; a backend that answers one natively must return exactly the evaluator's
/// rows, and one that does not can rely on the default ``StorageReader/aggregate(_:schema:)``.
///
/// ```swift
/// // SELECT age, count(age) FROM Person WHERE age > 18 GROUP BY age ORDER BY age DESC
/// AggregateRequest(
///     entity: "Person", predicate: .comparison(Comparison("age", .greater, .int(18))),
///     terms: [AggregateTerm(.value, "age"), AggregateTerm(.count, "age")],
///     groupBy: ["age"], sortDescriptors: [RecordSortDescriptor(key: "age", ascending: false)]
/// )
/// ```
public struct AggregateRequest: Sendable, Hashable {
    /// The entity to read.
    public var entity: String
    /// Whether records of sub-entities are included (they are by default).
    public var includesSubentities: Bool
    /// The filter applied before grouping; `nil` keeps every record.
    public var predicate: RecordPredicate?
    /// The output columns, in order.
    public var terms: [AggregateTerm]
    /// The attributes whose values form a group; empty means no explicit grouping.
    public var groupBy: [String]
    /// The order of the rows. In a grouped request every key must be one of ``groupBy``.
    public var sortDescriptors: [RecordSortDescriptor]
    /// At most this many rows (after `offset`); `nil` means no limit.
    public var limit: Int?
    /// Skip this many rows first.
    public var offset: Int

    /// Creates a request.
    public init(
        entity: String, includesSubentities: Bool = true, predicate: RecordPredicate? = nil,
        terms: [AggregateTerm], groupBy: [String] = [], sortDescriptors: [RecordSortDescriptor] = [],
        limit: Int? = nil, offset: Int = 0
    ) {
        self.entity = entity
        self.includesSubentities = includesSubentities
        self.predicate = predicate
        self.terms = terms
        self.groupBy = groupBy
        self.sortDescriptors = sortDescriptors
        self.limit = limit
        self.offset = offset
    }
}

/// One output column of an ``AggregateRequest``: a function applied to a key.
public struct AggregateTerm: Sendable, Hashable {
    /// What is computed.
    public var function: AggregateFunction
    /// The attribute (or, for a per-record ``AggregateFunction/count``, the relationship).
    public var key: String

    /// Creates a term.
    public init(_ function: AggregateFunction, _ key: String) {
        self.function = function
        self.key = key
    }
}

/// What an ``AggregateTerm`` computes. See ``AggregateEvaluator`` for the exact semantics.
public enum AggregateFunction: String, Sendable, Hashable, CaseIterable {
    /// The attribute's value itself: per record, or the group's value of a `groupBy` key.
    case value
    /// The number of non-`nil` values of an attribute; of a relationship, the number of each
    /// record's destinations.
    case count
    /// The sum of the non-`nil` values of a numeric attribute.
    case sum
    /// The mean of the non-`nil` values of a numeric attribute.
    case average
    /// The smallest non-`nil`, non-NaN value, in ``Value/storageOrder(_:_:)``.
    case minimum
    /// The largest non-`nil`, non-NaN value, in ``Value/storageOrder(_:_:)``.
    case maximum
}

extension AggregateRequest {
    /// The order of a grouped request's rows, as every store computes it: the sort descriptors
    /// (each key once, first occurrence wins), then the other `groupBy` keys ascending. For a
    /// valid request every key is a `groupBy` key (``AggregateEvaluator`` checks it).
    public var groupOrderKeys: [RecordSortDescriptor] {
        var keys: [RecordSortDescriptor] = []
        for sort in sortDescriptors where !keys.contains(where: { $0.key == sort.key }) { keys.append(sort) }
        for key in groupBy where !keys.contains(where: { $0.key == key }) {
            keys.append(RecordSortDescriptor(key: key, ascending: true))
        }
        return keys
    }
}
