import CoreStoreStorage

/// Checks a request against the schema before any store sees it, so that a wrong key fails
/// the same way on an empty store as on a full one.
struct RequestValidator {
    let schema: StoreSchema

    func validate(entity: String, predicate: RecordPredicate?, sorts: [RecordSortDescriptor]) throws(CoreStoreError) {
        if let predicate { try validate(predicate, entity: entity) }
        for sort in sorts where schema.attributeOrdinal(sort.key, in: entity) == nil {
            throw .invalidPredicate(message: "cannot sort '\(entity)' by '\(sort.key)': it is not an attribute of the entity")
        }
    }

    private func validate(_ predicate: RecordPredicate, entity: String) throws(CoreStoreError) {
        switch predicate {
        case .constant:
            return
        case .not(let inner):
            try validate(inner, entity: entity)
        case .and(let parts), .or(let parts):
            for part in parts { try validate(part, entity: entity) }
        case .comparison(let comparison):
            try validate(comparison, entity: entity)
        }
    }

    private func validate(_ comparison: Comparison, entity: String) throws(CoreStoreError) {
        var current = entity
        let path = comparison.keyPath.joined(separator: ".")
        guard !comparison.keyPath.isEmpty else { throw .invalidPredicate(message: "a comparison has an empty key path") }
        for (i, key) in comparison.keyPath.enumerated() {
            let isLast = i == comparison.keyPath.count - 1
            if schema.attributeOrdinal(key, in: current) != nil {
                guard isLast else {
                    throw .invalidPredicate(message: "'\(key)' in '\(path)' is an attribute of '\(current)', so nothing can follow it")
                }
                if let function = comparison.function {
                    throw .invalidPredicate(message: "'\(path).\(function.rawValue)' needs a relationship, but '\(key)' is an attribute of '\(current)'")
                }
                if case .records = comparison.operand {
                    throw .invalidPredicate(message: "'\(path)' ends at the attribute '\(key)' of '\(current)', so it cannot be compared with objects; compare it with a value")
                }
                return
            }
            guard let ordinal = schema.relationshipOrdinal(key, in: current), let description = schema.entity(named: current) else {
                throw .invalidPredicate(message: "'\(current)' has no attribute or relationship named '\(key)' (in key path '\(path)')")
            }
            if isLast, comparison.function == nil, !Self.comparesWithObjects(comparison) {
                throw .invalidPredicate(message: "'\(path)' ends at the relationship '\(key)' of '\(current)', so it can only be compared with objects, ObjectIDs or nil using ==, != or IN (use '\(path).@count' to compare its size)")
            }
            current = description.relationships[ordinal].destinationEntity
        }
    }

    /// Whether a comparison that ends at a relationship has a form the evaluator accepts:
    /// `==`/`!=` with objects or nil, `IN` with objects (or an empty list).
    private static func comparesWithObjects(_ comparison: Comparison) -> Bool {
        switch (comparison.op, comparison.operand) {
        case (.equal, .records), (.notEqual, .records), (.in, .records), (.equal, .value(.null)), (.notEqual, .value(.null)):
            return true
        case (.in, .list(let values)):
            return values.isEmpty
        default:
            return false
        }
    }
}
