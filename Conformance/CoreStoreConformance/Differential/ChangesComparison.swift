import CoreStoreStorage

/// Compares the ``MergedChanges`` a store reports in ``CommitInfo/changes`` with the reference
/// model's. The contract fixes what each list holds, not its order, so inserts, updates and
/// deletes are compared by record key; records compare as ``CanonicalRecord`` (unordered to-many
/// destinations as sets); an update's changed keys must match exactly.
enum ChangesComparison {
    /// One reported update, in comparable form.
    struct Replacement: Hashable {
        var old: CanonicalRecord
        var new: CanonicalRecord
        var changedKeys: [String]
    }

    /// The disagreement, or `nil` when both report the same changes.
    static func compare(expected: MergedChanges, actual: MergedChanges) -> Disagreement? {
        var differences: [(String, String)] = []
        func records(_ list: [Record]) -> [Int64: CanonicalRecord] {
            Dictionary(list.map { ($0.id.key, CanonicalRecord($0)) }, uniquingKeysWith: { first, _ in first })
        }
        func replacements(_ list: [RecordReplacement]) -> [Int64: Replacement] {
            Dictionary(list.map { ($0.new.id.key, Replacement(old: CanonicalRecord($0.old), new: CanonicalRecord($0.new), changedKeys: $0.changedKeys.sorted())) },
                       uniquingKeysWith: { first, _ in first })
        }
        func collect<T: Equatable>(_ kind: String, _ e: [Int64: T], _ a: [Int64: T], _ eCount: Int, _ aCount: Int, show: (T) -> String) {
            if eCount != e.count || aCount != a.count {
                differences.append(("\(eCount) \(kind)", "\(aCount) \(kind) (a key reported twice)"))
            }
            for key in Set(e.keys).union(a.keys).sorted() where e[key] != a[key] {
                differences.append(("\(kind) #\(key): " + (e[key].map(show) ?? "none"), "\(kind) #\(key): " + (a[key].map(show) ?? "none")))
            }
        }
        collect("insert", records(expected.inserts), records(actual.inserts), expected.inserts.count, actual.inserts.count, show: \.description)
        collect("update", replacements(expected.updates), replacements(actual.updates), expected.updates.count, actual.updates.count) {
            "[\($0.changedKeys.joined(separator: ", "))] \($0.old.description) → \($0.new.description)"
        }
        collect("delete", records(expected.deletes), records(actual.deletes), expected.deletes.count, actual.deletes.count, show: \.description)
        guard !differences.isEmpty else { return nil }
        let shown = differences.prefix(6)
        return Disagreement(expected: "commit reporting " + shown.map(\.0).joined(separator: "; "),
                            actual: "commit reporting " + shown.map(\.1).joined(separator: "; "))
    }
}

extension CanonicalRecord: CustomStringConvertible {
    /// `Entity#key{attributes; relationships}`, unordered destinations sorted.
    var description: String {
        "\(id){" + attributes.map(DifferentialOperation.renderValue).joined(separator: ", ") + "; "
            + relationships.map { "[" + $0.joined(separator: ", ") + "]" }.joined(separator: ", ") + "}"
    }
}
