import Foundation
import CoreStoreStorage

/// One step of a differential sequence, applied to the store under test and to the
/// ``ReferenceModel`` alike.
public enum DifferentialOperation: Sendable, Hashable, CustomStringConvertible {
    /// A write; `note` says what the generator meant it to do (`"create"`, `"invalid: missing record"`, …).
    case write(ChangeSet, note: String)
    /// A fetch whose records (ids, values, order) must match.
    case fetch(FetchRequest)
    /// A count that must match.
    case count(FetchRequest)
    /// An aggregate whose rows must match.
    case aggregate(AggregateRequest)
    /// A lookup of records by identifier.
    case lookUp([RecordID])

    /// A readable, one-operation-per-line rendering for reproductions.
    public var description: String {
        switch self {
        case .write(let changes, let note):
            var parts: [String] = []
            if !changes.inserts.isEmpty { parts.append("insert " + changes.inserts.map(Self.render).joined(separator: ", ")) }
            if !changes.updates.isEmpty {
                parts.append("update " + changes.updates.map { update in
                    var text = "\(Self.render(update.record)) changed [\(update.changedKeys.sorted().joined(separator: ", "))]"
                    if let base = update.base { text += base == update.record ? " from itself" : " from \(Self.render(base))" }
                    return text
                }.joined(separator: ", "))
            }
            if !changes.deletes.isEmpty { parts.append("delete " + changes.deletes.map(\.description).joined(separator: ", ")) }
            return "write (\(note)): " + (parts.isEmpty ? "nothing" : parts.joined(separator: "; "))
        case .fetch(let request):
            return "fetch " + Self.render(request)
        case .count(let request):
            return "count " + Self.render(request)
        case .aggregate(let request):
            var text = "aggregate \(request.entity)\(request.includesSubentities ? "" : " (no sub-entities)") "
            text += "[" + request.terms.map { "\($0.function.rawValue)(\($0.key))" }.joined(separator: ", ") + "]"
            if let predicate = request.predicate { text += " where " + Self.render(predicate) }
            if !request.groupBy.isEmpty { text += " group by " + request.groupBy.joined(separator: ", ") }
            text += Self.renderWindow(request.sortDescriptors, request.limit, request.offset)
            return text
        case .lookUp(let ids):
            return "look up " + ids.map(\.description).joined(separator: ", ")
        }
    }

    /// `Entity#key{attributes; relationships}`.
    static func render(_ record: Record) -> String {
        let attributes = record.attributes.map(renderValue).joined(separator: ", ")
        let relationships = record.relationships.map { "[" + $0.map(\.description).joined(separator: ", ") + "]" }.joined(separator: ", ")
        return "\(record.id){\(attributes); \(relationships)}"
    }

    static func renderValue(_ value: Value) -> String {
        switch value {
        case .double(let d):
            if d.isNaN { return "nan" }
            return d == 0 && d.sign == .minus ? "-0.0" : String(d)
        case .string(let s):
            let escaped = s.unicodeScalars.map { $0.isASCII ? String($0) : "\\u{\(String($0.value, radix: 16))}" }.joined()
            return "\"\(escaped)\""
        default:
            return value.description
        }
    }

    static func render(_ request: FetchRequest) -> String {
        var text = request.entity + (request.includesSubentities ? "" : " (no sub-entities)")
        if let predicate = request.predicate { text += " where " + render(predicate) }
        text += renderWindow(request.sortDescriptors, request.limit, request.offset)
        return text
    }

    static func renderWindow(_ sorts: [RecordSortDescriptor], _ limit: Int?, _ offset: Int) -> String {
        var text = ""
        if !sorts.isEmpty { text += " sort " + sorts.map { "\($0.key) \($0.ascending ? "asc" : "desc")" }.joined(separator: ", ") }
        if let limit { text += " limit \(limit)" }
        if offset != 0 { text += " offset \(offset)" }
        return text
    }

    static func render(_ predicate: RecordPredicate) -> String {
        switch predicate {
        case .constant(let b): return b ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .not(let p): return "NOT (\(render(p)))"
        case .and(let ps): return ps.isEmpty ? "TRUEPREDICATE" : "(" + ps.map(render).joined(separator: " AND ") + ")"
        case .or(let ps): return ps.isEmpty ? "FALSEPREDICATE" : "(" + ps.map(render).joined(separator: " OR ") + ")"
        case .comparison(let c):
            var text = c.quantifier == .any ? "" : c.quantifier.rawValue + " "
            text += c.keyPath.joined(separator: ".")
            if let function = c.function { text += "." + function.rawValue }
            text += " " + c.op.rawValue
            if !c.options.isEmpty {
                text += "[" + (c.options.contains(.caseInsensitive) ? "c" : "") + (c.options.contains(.diacriticInsensitive) ? "d" : "") + "]"
            }
            switch c.operand {
            case .value(let v): text += " " + renderValue(v)
            case .list(let vs): text += " {" + vs.map(renderValue).joined(separator: ", ") + "}"
            case .records(let ids): text += " {" + ids.map(\.description).joined(separator: ", ") + "}"
            }
            return text
        }
    }
}
