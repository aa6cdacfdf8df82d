import CoreStoreStorage

extension RequestValidator {
    /// Checks a query's select terms, grouping keys and sort keys against the schema, before any
    /// store sees it; returns whether the query is grouped (see `AggregateEvaluator`).
    func validateQuery(entity: String, terms: [QueryTerm], groupBy: [String], sorts: [RecordSortDescriptor]) throws(CoreStoreError) -> Bool {
        guard !terms.isEmpty else { throw .invalidPredicate(message: "a query on '\(entity)' selects no columns") }
        var aliases: Set<String> = []
        for term in terms where !aliases.insert(term.alias).inserted {
            throw .invalidPredicate(message: "two columns of a query on '\(entity)' are named '\(term.alias)'; rename one with `as:`")
        }
        for key in groupBy where attributeType(key, in: entity) == nil {
            let reason = schema.relationshipOrdinal(key, in: entity) != nil ? "it is a relationship, not an attribute" : "it is not an attribute of the entity"
            throw .invalidPredicate(message: "cannot group '\(entity)' by '\(key)': \(reason)")
        }
        let isGrouped = !groupBy.isEmpty || terms.contains { term in
            guard case .storage(let function) = term.function else { return false }
            return function != .value && attributeType(term.key, in: entity) != nil
        }
        for term in terms {
            guard case .storage(let function) = term.function else {
                if isGrouped {
                    throw .invalidPredicate(message: "objectID() is one value per object, so it cannot be selected in a query with GroupBy or aggregates of attributes")
                }
                continue
            }
            try validate(term, function, entity: entity, groupBy: groupBy, isGrouped: isGrouped)
        }
        if isGrouped {
            for sort in sorts where !groupBy.contains(sort.key) {
                throw .invalidPredicate(message: "a grouped query on '\(entity)' can only be ordered by its GroupBy keys, and '\(sort.key)' is not one")
            }
        }
        return isGrouped
    }

    private func validate(_ term: QueryTerm, _ function: AggregateFunction, entity: String, groupBy: [String], isGrouped: Bool) throws(CoreStoreError) {
        let key = term.key
        let name = function == .value ? "'\(key)'" : "\(QueryTerm.functionName(function))(\(key))"
        guard let type = attributeType(key, in: entity) else {
            guard schema.relationshipOrdinal(key, in: entity) != nil else {
                throw .invalidPredicate(message: "cannot select \(name): '\(entity)' has no attribute or relationship named '\(key)'")
            }
            guard function == .count else {
                throw .invalidPredicate(message: "cannot select \(name): '\(key)' is a relationship of '\(entity)', and of a relationship only count(\(key)) can be selected")
            }
            guard !isGrouped else {
                throw .invalidPredicate(message: "count(\(key)) counts the related objects of each '\(entity)', so it cannot be selected in a query with GroupBy or aggregates of attributes")
            }
            return
        }
        switch function {
        case .value:
            if isGrouped && !groupBy.contains(key) {
                throw .invalidPredicate(message: "'\(key)' is selected without an aggregate in a grouped query on '\(entity)', so it must be a GroupBy key")
            }
        case .sum, .average:
            switch type {
            case .bool, .integer, .double, .decimal:
                break
            case .string, .bytes, .date, .uuid, .url:
                throw .invalidPredicate(message: "cannot select \(name): '\(key)' of '\(entity)' is a \(type.rawValue) attribute, not a number")
            }
        case .count, .minimum, .maximum:
            break
        }
    }

    private func attributeType(_ key: String, in entity: String) -> AttributeType? {
        guard let ordinal = schema.attributeOrdinal(key, in: entity), let description = schema.entity(named: entity) else { return nil }
        return description.attributes[ordinal].type
    }
}
