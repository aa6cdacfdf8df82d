import Foundation
import CoreStoreStorage

/// A request grouped by one indexed attribute that asks only for that attribute (its value,
/// `count`, `minimum`, `maximum`), answered from the index's entries without reading a record:
/// "how many of each status" costs a pass over the entries, not a decode of every record.
///
/// Why the rows are ``AggregateEvaluator``'s: the index is one of that attribute alone, not
/// unique (a unique index may leave out `nil`), and has an entry for exactly the records the
/// request selects — all of them (no predicate), or those an exact plan on this same index
/// names (see ``FetchPlan/isExact``). Entries are ordered by the value's encoding, so a group's
/// entries lie together and are counted by comparing encodings, which for integers, strings,
/// booleans and `nil` are one-to-one with the values in ``Value/storageOrder(_:_:)``. Any
/// other value met (a decimal or a double in an integer attribute, which could share a group
/// with an integer of another encoding) makes ``rows(in:)`` return `nil`, and the caller
/// streams the records instead. A group's count of the attribute is its number of entries
/// (`0` for the `nil` group, whose values are all `nil`); its minimum and maximum are its
/// value. Rows are put in the request's group order as the evaluator orders them.
struct IndexOnlyGroups {
    /// The value types whose index encoding is one-to-one with their groups.
    private static let groupableTypes: Set<AttributeType> = [.integer, .string, .bool]

    /// What each term of the request reports for a group.
    private enum Term {
        /// The group's value (`value`, `minimum`, `maximum` of the group key).
        case value
        /// The number of the group's non-`nil` values.
        case count
    }

    /// The entries' ranges, ascending.
    private let ranges: [FetchPlan.KeyRange]
    /// The length of the index's prefix, after which an entry's value starts.
    private let prefixLength: Int
    /// The group key's type.
    private let type: AttributeType
    /// One per term.
    private let terms: [Term]
    /// The order of the rows.
    private let order: RecordOrder

    /// The index-only form of `request`, a grouped request whose records `plan` selects; `nil`
    /// when the request or the indexes leave the cases above.
    init?(_ request: AggregateRequest, plan: FetchPlan, layout: KeyValueLayout) {
        let schema = layout.schema
        guard request.groupBy.count == 1, !plan.entities.isEmpty else { return nil }
        let key = request.groupBy[0]
        guard let description = schema.entity(named: request.entity),
              let ordinal = schema.attributeOrdinal(key, in: request.entity) else { return nil }
        type = description.attributes[ordinal].type
        guard Self.groupableTypes.contains(type) else { return nil }
        var terms: [Term] = []
        for term in request.terms {
            guard term.key == key else { return nil }
            switch term.function {
            case .value, .minimum, .maximum: terms.append(.value)
            case .count: terms.append(.count)
            case .sum, .average: return nil
            }
        }
        // Entries of exactly the selected records (all of them, or an exact plan's on this index).
        guard let index = layout.oneAttributeIndex(of: key, holdingExactly: plan.entities) else { return nil }
        let prefix = layout.prefix(of: index)
        if request.predicate == nil {
            ranges = [FetchPlan.KeyRange(lowerBound: prefix, upperBound: TupleEncoder.elementsEnd(prefix))]
        } else {
            guard plan.isExact, plan.indexName == index.name else { return nil }
            ranges = plan.indexRanges
        }
        prefixLength = prefix.count
        self.terms = terms
        order = RecordOrder(request.groupOrderKeys)
    }

    /// The rows, in the request's order and before its window; `nil` when an entry holds a
    /// value of a kind whose groups its encoding does not give (see the type's description).
    /// Throws when an entry is damaged.
    func rows(in snapshot: any KeyValueReader) throws -> [[Value]]? {
        var groups: [(value: Value, entries: Int64)] = []
        // The group being counted: its value's encoding, value and entries so far.
        var encoding: [UInt8] = [], value = Value.null, entries: Int64 = 0
        var representable = true
        let checksEntries = !snapshot.verifiesStoredBytes
        for range in ranges where representable {
            try snapshot.scanPairs(from: range.lowerBound, to: range.upperBound) { entry, stored in
                if checksEntries { try IndexEntryChecksum.check(entry: entry, value: stored) }
                // An entry is the prefix, the value's encoding, then the record key's (9 bytes).
                let end = entry.count - 9
                guard end > prefixLength else {
                    throw KeyValueFormatError.damaged("index entry", "its \(entry.count)-byte key holds no value")
                }
                let valueBytes = UnsafeRawBufferPointer(rebasing: entry[prefixLength..<end])
                if entries > 0, Self.bytes(valueBytes, equal: encoding) {
                    entries += 1
                    return true
                }
                if entries > 0 { groups.append((value, entries)) }
                encoding = Array(valueBytes)
                var decoder = TupleDecoder(encoding)
                value = try decoder.next()
                guard decoder.isAtEnd, isGroupable(value) else {
                    representable = false
                    return false
                }
                entries = 1
                return true
            }
        }
        if entries > 0 { groups.append((value, entries)) }
        guard representable else { return nil }
        let keys = groups.map { [$0.value] }
        var sorted = Array(groups.indices)
        // Entries ascend in storage order: only a descending sort reorders the groups. The
        // check keeps the result right whatever order the entries come in.
        if !groups.indices.dropFirst().allSatisfy({ order.compareSortValues(keys[$0 - 1], keys[$0]) < 0 }) {
            sorted.sort { order.compareSortValues(keys[$0], keys[$1]) < 0 }
        }
        return sorted.map { g in
            let group = groups[g]
            return terms.map { term in
                switch term {
                case .value: return group.value
                case .count: return .int(group.value == .null ? 0 : group.entries)
                }
            }
        }
    }

    /// Whether `bytes` are `other`'s bytes (a length test and one `memcmp`, where a generic
    /// element-wise comparison took two hundred instructions an entry).
    @inline(__always)
    private static func bytes(_ bytes: UnsafeRawBufferPointer, equal other: [UInt8]) -> Bool {
        guard bytes.count == other.count else { return false }
        return other.withUnsafeBytes { memcmp(bytes.baseAddress.unsafelyUnwrapped, $0.baseAddress.unsafelyUnwrapped, bytes.count) == 0 }
    }

    /// Whether `value`, decoded from an entry, is one whose encoding is its group's alone.
    private func isGroupable(_ value: Value) -> Bool {
        switch (type, value) {
        case (_, .null), (.integer, .int), (.string, .string), (.bool, .bool): return true
        default: return false
        }
    }
}
