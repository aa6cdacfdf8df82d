import CoreStoreStorage

/// The store of each object a filter compares a relationship with, written into the filter.
///
/// A predicate names records by key, and a key is unique only within its store: with one entity
/// in two stores, `\.$master == ann` would also match the other store's dogs whose master has
/// Ann's key. So a filter names an object by its record identifier with the store's number
/// added to the entity name (`Person:3`; entity names cannot contain `:`), and each store is
/// asked the filter with only its own objects left, their names restored
/// (``predicate(_:in:)``). Relationships never cross stores, so that is exact. Identifiers compare
/// by key alone, so a tagged filter still equals the one built from plain identifiers.
enum StoreTaggedRecords {
    /// `id`'s record identifier with its store's number.
    static func tagged(_ id: ObjectID) -> RecordID {
        RecordID(entity: "\(id.recordID.entity):\(id.storeID)", key: id.recordID.key)
    }

    /// The store number and the plain entity name of a tagged identifier; `nil` for a plain one.
    private static func split(_ id: RecordID) -> (store: UInt64, entity: String)? {
        guard let colon = id.entity.lastIndex(of: ":"), let store = UInt64(id.entity[id.entity.index(after: colon)...]) else { return nil }
        return (store, String(id.entity[..<colon]))
    }

    /// `predicate` as the store `storeID` reads it: each list of objects keeps only the store's
    /// own, with their plain names (an emptied list matches nothing with `==` and `IN`,
    /// everything with `!=`, as for an object the store does not hold). Untagged identifiers
    /// (from a `RecordPredicate` built by hand) stay. A predicate that names no object is
    /// returned as it is.
    static func predicate(_ predicate: RecordPredicate, in storeID: UInt64) -> RecordPredicate {
        guard namesObjects(predicate) else { return predicate }
        return scoped(predicate, in: storeID)
    }

    private static func scoped(_ predicate: RecordPredicate, in storeID: UInt64) -> RecordPredicate {
        switch predicate {
        case .constant: return predicate
        case .not(let inner): return .not(scoped(inner, in: storeID))
        case .and(let parts): return .and(parts.map { scoped($0, in: storeID) })
        case .or(let parts): return .or(parts.map { scoped($0, in: storeID) })
        case .comparison(var comparison):
            guard case .records(let ids) = comparison.operand else { return predicate }
            comparison.operand = .records(ids.compactMap { id in
                guard let (store, entity) = split(id) else { return id }
                return store == storeID ? RecordID(entity: entity, key: id.key) : nil
            })
            return .comparison(comparison)
        }
    }

    /// Whether `predicate` compares a relationship with a tagged identifier.
    private static func namesObjects(_ predicate: RecordPredicate) -> Bool {
        switch predicate {
        case .constant: return false
        case .not(let inner): return namesObjects(inner)
        case .and(let parts), .or(let parts): return parts.contains(where: namesObjects)
        case .comparison(let comparison):
            guard case .records(let ids) = comparison.operand else { return false }
            return ids.contains { split($0) != nil }
        }
    }

    /// The stores the objects `predicate` names belong to.
    static func stores(namedIn predicate: RecordPredicate) -> Set<UInt64> {
        switch predicate {
        case .constant: return []
        case .not(let inner): return stores(namedIn: inner)
        case .and(let parts), .or(let parts): return parts.reduce(into: []) { $0.formUnion(stores(namedIn: $1)) }
        case .comparison(let comparison):
            guard case .records(let ids) = comparison.operand else { return [] }
            return Set(ids.compactMap { split($0)?.store })
        }
    }
}

extension CoreStoreFetchRequest {
    /// The filter as the store `storeID` reads it (see ``StoreTaggedRecords``).
    func predicate(in storeID: UInt64) -> RecordPredicate? {
        predicate.map { StoreTaggedRecords.predicate($0, in: storeID) }
    }
}
