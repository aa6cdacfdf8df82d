import CoreStoreStorage

/// An ungrouped request for the `minimum` and `maximum` of indexed attributes, answered from
/// the first and last entries of their indexes: "the highest id" (or the highest below some
/// bound) is two seeks, not a scan of every record.
///
/// Why the values are ``AggregateEvaluator``'s: each term's index is one of that attribute
/// alone, not unique, with an entry for exactly the records the request selects — all of them
/// (no predicate), or those an exact plan on that same index names (see
/// ``FetchPlan/isExact``), within its ranges. An entry's value encoding starts with its type
/// code, and the codes' ranges are ordered; `nil`, which `minimum` and `maximum` skip, has the
/// lowest, and is cut off the ranges. When the first and the last entry left both hold a value
/// of the attribute's own case (an integer, a string, a boolean), every value in between does
/// too, and within one case the encoding orders as ``Value/storageOrder(_:_:)`` and is
/// one-to-one with the values: the first is the minimum, the last the maximum. Anything else at
/// either end (a decimal or a double in an integer attribute) makes ``row(in:)`` return `nil`,
/// and the caller reads the records instead.
struct IndexOnlyExtremes {
    /// What one term reads.
    private struct Extreme {
        /// The index's prefix.
        let prefix: [UInt8]
        /// The entries to look at, ascending, without `nil`s.
        let ranges: [FetchPlan.KeyRange]
        /// The type code of the attribute's own case.
        let code: UInt8
        /// Whether the term is the maximum (else the minimum).
        let isMaximum: Bool
    }

    /// One per term.
    private let extremes: [Extreme]

    /// The index-only form of `request`, a grouped request whose records `plan` selects; `nil`
    /// when the request or the indexes leave the cases above.
    init?(_ request: AggregateRequest, plan: FetchPlan, layout: KeyValueLayout) {
        let schema = layout.schema
        guard request.groupBy.isEmpty, !request.terms.isEmpty, !plan.entities.isEmpty,
              let description = schema.entity(named: request.entity) else { return nil }
        // With a predicate, only an exact plan's ranges, on the index of each term.
        if request.predicate != nil, !plan.isExact { return nil }
        var extremes: [Extreme] = []
        for term in request.terms {
            guard term.function == .minimum || term.function == .maximum,
                  let ordinal = schema.attributeOrdinal(term.key, in: request.entity) else { return nil }
            let code: UInt8
            switch description.attributes[ordinal].type {
            case .integer: code = TupleEncoder.TypeCode.int
            case .string: code = TupleEncoder.TypeCode.string
            case .bool: code = TupleEncoder.TypeCode.bool
            default: return nil
            }
            guard let index = layout.oneAttributeIndex(of: term.key, holdingExactly: plan.entities) else { return nil }
            let prefix = layout.prefix(of: index)
            // The entries after the `nil`s: from the first code above `nil` on.
            let values = prefix + [TupleEncoder.TypeCode.null + 1]
            var ranges = [FetchPlan.KeyRange(lowerBound: values, upperBound: TupleEncoder.elementsEnd(prefix))]
            if request.predicate != nil {
                guard plan.indexName == index.name else { return nil }
                ranges = plan.indexRanges.compactMap { range in
                    let lower = KeyOrder.precedes(range.lowerBound, values) ? values : range.lowerBound
                    return KeyOrder.precedes(lower, range.upperBound) ? FetchPlan.KeyRange(lowerBound: lower, upperBound: range.upperBound) : nil
                }
            }
            extremes.append(Extreme(prefix: prefix, ranges: ranges, code: code, isMaximum: term.function == .maximum))
        }
        self.extremes = extremes
    }

    /// The one row; `nil` when an end of an index holds a value of another case than its
    /// attribute's (see the type's description). Throws when an entry is damaged.
    func row(in snapshot: any KeyValueReader) throws -> [Value]? {
        var row: [Value] = []
        let checksEntries = !snapshot.verifiesStoredBytes
        for extreme in extremes {
            var end: [UInt8]?
            if extreme.isMaximum {
                for range in extreme.ranges.reversed() where end == nil {
                    try snapshot.scan(from: range.lowerBound, to: range.upperBound, reverse: true) { entry, value in
                        if checksEntries { try IndexEntryChecksum.check(entry: entry, value: value) }
                        end = entry
                        return false
                    }
                }
            } else {
                for range in extreme.ranges where end == nil {
                    try snapshot.scanPairs(from: range.lowerBound, to: range.upperBound) { entry, value in
                        if checksEntries { try IndexEntryChecksum.check(entry: entry, value: value) }
                        end = Array(entry)
                        return false
                    }
                }
            }
            guard let entry = end else {
                // No value but `nil`: the evaluator's extreme of no values.
                row.append(.null)
                continue
            }
            // An entry is the prefix, the value's encoding, then the record key's (9 bytes).
            guard entry.count > extreme.prefix.count + 9 else {
                throw KeyValueFormatError.damaged("index entry", "its \(entry.count)-byte key holds no value")
            }
            guard entry[extreme.prefix.count] == extreme.code else { return nil }
            var decoder = TupleDecoder(Array(entry[extreme.prefix.count..<(entry.count - 9)]))
            let value = try decoder.next()
            guard decoder.isAtEnd else { return nil }
            row.append(value)
        }
        return row
    }
}
