import CoreStoreStorage

/// An aggregate request answered from the stored ``AttributeTotals`` instead of a scan: no
/// predicate, no `groupBy` keys, and every term a `count`, `sum` or `average` of an integer or
/// double attribute. The answer is the one row the evaluator computes over all the entity's
/// records (and its sub-entities' when the request includes them); `nil` when the generation
/// keeps no totals or a total cannot give the evaluator's exact result (see
/// ``AttributeTotals``), and the caller scans.
struct AttributeTotalsAnswer {
    /// One column: the function, the attribute and whether it holds doubles.
    private let columns: [(function: AggregateFunction, key: String, isDouble: Bool)]
    /// The entities whose records the request reads.
    private let entities: [String]

    /// The plan for `request`, which the evaluator validated and found grouped; `nil` when it
    /// is not one the totals answer.
    init?(_ request: AggregateRequest, schema: StoreSchema) {
        guard request.predicate == nil, request.groupBy.isEmpty, !request.terms.isEmpty,
              let description = schema.entity(named: request.entity) else { return nil }
        var columns: [(function: AggregateFunction, key: String, isDouble: Bool)] = []
        for term in request.terms {
            guard term.function == .count || term.function == .sum || term.function == .average,
                  let ordinal = schema.attributeOrdinal(term.key, in: request.entity) else { return nil }
            switch description.attributes[ordinal].type {
            case .integer: columns.append((term.function, term.key, false))
            case .double: columns.append((term.function, term.key, true))
            default: return nil
            }
        }
        self.columns = columns
        entities = request.includesSubentities ? schema.entityAndDescendants(request.entity) : [request.entity]
    }

    /// The row, from the totals `reader` holds for `layout`'s generation; `nil` when it holds
    /// none or one of the columns cannot be answered exactly.
    func row(in reader: any KeyValueReader, layout: KeyValueLayout) throws -> [Value]? {
        guard let totals = try AttributeTotals.stored(reader, layout: layout) else { return nil }
        var row: [Value] = []
        row.reserveCapacity(columns.count)
        for column in columns {
            var total = AttributeTotals.Total()
            for entity in entities {
                guard let index = totals.entityIndex(entity),
                      let ordinal = layout.schema.attributeOrdinal(column.key, in: entity) else { return nil }
                total = total + totals.total(entityIndex: index, ordinal: ordinal)
            }
            guard let value = Self.value(column.function, of: total, isDouble: column.isDouble) else { return nil }
            row.append(value)
        }
        return row
    }

    /// What ``AggregateAccumulator/result(for:)`` gives for `function` over the values `total`
    /// sums; `nil` when the total cannot tell exactly.
    private static func value(_ function: AggregateFunction, of total: AttributeTotals.Total, isDouble: Bool) -> Value? {
        if function == .count { return .int(total.count) }
        if total.count == 0 { return .null }
        if isDouble {
            guard let sum = total.exactDoubleSum else { return nil }
            return .double(function == .sum ? sum : sum / Double(total.count))
        }
        guard let sum = total.exactIntegerSum else { return nil }
        return function == .sum ? .int(sum) : .double(Double(sum) / Double(total.count))
    }
}
