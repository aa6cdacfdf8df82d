import Foundation
import CoreStoreStorage

/// The stores of the objects a filter compares relationships with.
///
/// A predicate names records by their keys, and a key is unique only within its store: with one
/// entity in two stores, `\.$master == ann` would also match the other store's dogs whose master
/// has Ann's key. So a filter remembers which store each object it names belongs to, and each
/// store is asked only about the objects it holds (relationships never cross stores).
struct ObjectStores: Sendable, Hashable {
    private var storesByRecord: [RecordID: Set<UInt64>] = [:]

    /// Whether the filter names no object (its predicate reads the same in every store).
    var isEmpty: Bool { storesByRecord.isEmpty }

    /// Remembers the store of `id`.
    mutating func add(_ id: ObjectID) {
        storesByRecord[id.recordID, default: []].insert(id.storeID)
    }

    /// The objects of both.
    func merging(_ other: ObjectStores) -> ObjectStores {
        if other.isEmpty { return self }
        if isEmpty { return other }
        var merged = self
        merged.storesByRecord.merge(other.storesByRecord) { $0.union($1) }
        return merged
    }

    /// The objects and object identifiers among format arguments, at any depth of collections.
    static func ofArguments(_ arguments: [Any?]) -> ObjectStores {
        var stores = ObjectStores()
        func visit(_ argument: Any?) {
            switch argument {
            case nil: return
            case let object as CoreStoreObject: object.cs_id().map { stores.add($0) }
            case let id as ObjectID: stores.add(id)
            case is String, is Data: return
            case let sequence as any Sequence: for element in sequence { visit(element) }
            default: return
            }
        }
        for argument in arguments { visit(argument) }
        return stores
    }

    /// `predicate` as the store `storeID` reads it: every list of records keeps only those of
    /// that store (an emptied list matches nothing with `==` and `IN`, everything with `!=`).
    func predicate(_ predicate: RecordPredicate, in storeID: UInt64) -> RecordPredicate {
        if isEmpty { return predicate }
        switch predicate {
        case .constant: return predicate
        case .not(let inner): return .not(self.predicate(inner, in: storeID))
        case .and(let parts): return .and(parts.map { self.predicate($0, in: storeID) })
        case .or(let parts): return .or(parts.map { self.predicate($0, in: storeID) })
        case .comparison(var comparison):
            guard case .records(let ids) = comparison.operand else { return predicate }
            comparison.operand = .records(ids.filter { storesByRecord[$0]?.contains(storeID) ?? true })
            return .comparison(comparison)
        }
    }
}

extension CoreStoreFetchRequest {
    /// The filter as the store `storeID` reads it (see ``ObjectStores``).
    func predicate(in storeID: UInt64) -> RecordPredicate? {
        predicate.map { objectStores.predicate($0, in: storeID) }
    }
}
