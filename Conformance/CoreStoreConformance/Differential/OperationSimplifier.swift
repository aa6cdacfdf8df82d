import CoreStoreStorage

/// The simpler variants of one operation that shrinking tries once whole operations can no
/// longer be dropped: a compound predicate replaced by one of its parts, a predicate dropped,
/// sort keys, limits, offsets, string modifiers, list elements, aggregate terms, looked-up
/// identifiers, unreferenced inserts, deletes and updates removed, an update's changed keys or
/// base dropped.
///
/// Every variant is strictly smaller by ``size(_:)``, so repeated simplification ends.
enum OperationSimplifier {
    /// The variants of `operation`, most drastic first.
    static func variants(of operation: DifferentialOperation) -> [DifferentialOperation] {
        switch operation {
        case .write(let changes, let note):
            // Inserts nothing else in the change set points at, and single deletes, can go
            // without leaving a dangling temporary identifier.
            let referenced = Set((changes.inserts + changes.updates.map(\.record)).flatMap { $0.relationships.joined() })
            var result: [DifferentialOperation] = []
            for (i, insert) in changes.inserts.enumerated() where !referenced.contains(insert.id) {
                var smaller = changes
                smaller.inserts.remove(at: i)
                result.append(.write(smaller, note: note))
            }
            for i in changes.deletes.indices {
                var smaller = changes
                smaller.deletes.remove(at: i)
                result.append(.write(smaller, note: note))
            }
            // The store keeps inverses itself, so any update can go, and any of its changed keys
            // or its base (then its to-many lists are written as they are).
            for i in changes.updates.indices {
                var smaller = changes
                smaller.updates.remove(at: i)
                result.append(.write(smaller, note: note))
            }
            for (i, update) in changes.updates.enumerated() {
                for key in update.changedKeys.sorted() {
                    var smaller = changes
                    smaller.updates[i].changedKeys.remove(key)
                    result.append(.write(smaller, note: note))
                }
                if update.base != nil {
                    var smaller = changes
                    smaller.updates[i].base = nil
                    result.append(.write(smaller, note: note))
                }
            }
            return result
        case .fetch(let request):
            return variants(of: request).map(DifferentialOperation.fetch)
        case .count(let request):
            return variants(of: request).map(DifferentialOperation.count)
        case .aggregate(let request):
            return variants(of: request).map(DifferentialOperation.aggregate)
        case .lookUp(let ids):
            return ids.indices.map { i in .lookUp(ids.enumerated().filter { $0.offset != i }.map(\.element)) }
        }
    }

    /// A measure that every variant decreases.
    static func size(_ operation: DifferentialOperation) -> Int {
        switch operation {
        case .write(let changes, _):
            return changes.inserts.count + changes.deletes.count
                + changes.updates.reduce(0) { $0 + 1 + $1.changedKeys.count + ($1.base == nil ? 0 : 1) }
        case .fetch(let request), .count(let request):
            return size(request.predicate) + request.sortDescriptors.count + (request.limit == nil ? 0 : 1) + (request.offset == 0 ? 0 : 1)
        case .aggregate(let request):
            return size(request.predicate) + request.sortDescriptors.count + (request.limit == nil ? 0 : 1) + (request.offset == 0 ? 0 : 1) + request.terms.count
        case .lookUp(let ids):
            return ids.count
        }
    }

    static func size(_ predicate: RecordPredicate?) -> Int {
        switch predicate {
        case nil: return 0
        case .constant?: return 1
        case .not(let inner)?: return 1 + size(inner)
        case .and(let parts)?, .or(let parts)?: return 1 + parts.reduce(0) { $0 + size($1) }
        case .comparison(let c)?:
            var size = 2 + c.options.rawValue.nonzeroBitCount
            if case .list(let values) = c.operand { size += values.count }
            if case .records(let ids) = c.operand { size += ids.count }
            return size
        }
    }

    private static func variants(of request: FetchRequest) -> [FetchRequest] {
        var result: [FetchRequest] = []
        for predicate in variants(ofOptional: request.predicate) {
            var r = request
            r.predicate = predicate
            result.append(r)
        }
        for i in request.sortDescriptors.indices {
            var r = request
            r.sortDescriptors.remove(at: i)
            result.append(r)
        }
        if request.limit != nil {
            var r = request
            r.limit = nil
            result.append(r)
        }
        if request.offset != 0 {
            var r = request
            r.offset = 0
            result.append(r)
        }
        return result
    }

    private static func variants(of request: AggregateRequest) -> [AggregateRequest] {
        var result: [AggregateRequest] = []
        for predicate in variants(ofOptional: request.predicate) {
            var r = request
            r.predicate = predicate
            result.append(r)
        }
        for i in request.sortDescriptors.indices {
            var r = request
            r.sortDescriptors.remove(at: i)
            result.append(r)
        }
        if request.limit != nil {
            var r = request
            r.limit = nil
            result.append(r)
        }
        if request.offset != 0 {
            var r = request
            r.offset = 0
            result.append(r)
        }
        if request.terms.count > 1 {
            for i in request.terms.indices {
                var r = request
                r.terms.remove(at: i)
                result.append(r)
            }
        }
        return result
    }

    /// No predicate, then the variants of the predicate itself.
    private static func variants(ofOptional predicate: RecordPredicate?) -> [RecordPredicate?] {
        guard let predicate else { return [] }
        return [nil] + variants(of: predicate).map { Optional($0) }
    }

    /// The parts of a compound predicate alone, the compound without one part, a comparison
    /// without modifiers or with a shorter list, and the same inside every part.
    static func variants(of predicate: RecordPredicate) -> [RecordPredicate] {
        switch predicate {
        case .constant:
            return []
        case .not(let inner):
            return [inner] + variants(of: inner).map(RecordPredicate.not)
        case .and(let parts), .or(let parts):
            let rebuild: ([RecordPredicate]) -> RecordPredicate = {
                if case .and = predicate { return .and($0) }
                return .or($0)
            }
            var result = parts
            if parts.count > 1 {
                result += parts.indices.map { i in rebuild(parts.enumerated().filter { $0.offset != i }.map(\.element)) }
            }
            for (i, part) in parts.enumerated() {
                for simpler in variants(of: part) {
                    var changed = parts
                    changed[i] = simpler
                    result.append(rebuild(changed))
                }
            }
            return result
        case .comparison(let comparison):
            var result: [RecordPredicate] = []
            if !comparison.options.isEmpty {
                var c = comparison
                c.options = []
                result.append(.comparison(c))
            }
            if case .list(let values) = comparison.operand, comparison.op == .in {
                for i in values.indices {
                    var c = comparison
                    c.operand = .list(values.enumerated().filter { $0.offset != i }.map(\.element))
                    result.append(.comparison(c))
                }
            }
            if case .records(let ids) = comparison.operand, comparison.op == .in {
                for i in ids.indices {
                    var c = comparison
                    c.operand = .records(ids.enumerated().filter { $0.offset != i }.map(\.element))
                    result.append(.comparison(c))
                }
            }
            return result
        }
    }
}
