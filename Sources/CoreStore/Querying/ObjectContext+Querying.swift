import CoreStoreStorage

/// One cell of a query result: a stored value, or an object identifier added by the core.
enum QueryCell {
    case value(Value)
    case objectID(ObjectID)
}

extension ObjectContext {
    /// Runs a query and returns its rows, one cell per select term.
    ///
    /// The request is validated against the schema first, so a bad key fails on an empty store
    /// too. A single store answers the whole request (natively or through its reader's default)
    /// when there are no pending changes to overlay and no `objectID()` column; otherwise the
    /// records are fetched through ``fetchRecords(_:)`` (pending changes and several stores
    /// included) and ``AggregateEvaluator`` computes the rows here.
    func queryRows(_ spec: QuerySpecification) throws(CoreStoreError) -> [[QueryCell]] {
        let target = try gateway.target(of: spec.fetch)
        let entity = target.entity, stores = target.stores, schema = target.schema
        let validator = RequestValidator(schema: schema)
        let isGrouped = try validator.validateQuery(entity: entity.name, terms: spec.terms, groupBy: spec.groupBy, sorts: spec.fetch.sortDescriptors)

        let tweaks = spec.fetch.tweaks
        let storageTerms = spec.terms.compactMap { term -> AggregateTerm? in
            guard case .storage(let function) = term.function else { return nil }
            return AggregateTerm(function, term.key)
        }
        let request = AggregateRequest(
            entity: entity.name, includesSubentities: tweaks.includesSubentities, predicate: spec.fetch.predicate,
            terms: storageTerms, groupBy: spec.groupBy, sortDescriptors: spec.fetch.sortDescriptors,
            limit: tweaks.fetchLimit > 0 ? tweaks.fetchLimit : nil, offset: tweaks.fetchOffset
        )
        let overlay = tweaks.includesPendingChanges && !isReadOnly && hasChanges
        let hasObjectID = storageTerms.count != spec.terms.count
        do {
            if stores.count == 1, !overlay, !hasObjectID, let store = stores.first {
                var request = request
                request.predicate = spec.fetch.predicate(in: store.id)
                let rows = try gateway.read(store) { try $0.aggregate(request, schema: store.schema) }
                return rows.map { $0.map(QueryCell.value) }
            }
            let evaluator = AggregateEvaluator(schema: schema)
            if isGrouped {
                var fetch = spec.fetch
                fetch.sortDescriptors = []
                fetch.tweaks.fetchLimit = 0
                fetch.tweaks.fetchOffset = 0
                let records = try fetchRecords(fetch).map(\.1)
                return try evaluator.rows(request, records: records).map { $0.map(QueryCell.value) }
            }
            let pairs = try fetchRecords(spec.fetch)
            let rows = try evaluator.projectedRows(request, orderedRecords: pairs.map(\.1))
            return zip(pairs, rows).map { pair, row in
                var stored = row.makeIterator()
                return spec.terms.map { term in
                    if case .objectID = term.function { return .objectID(ObjectID(storeID: pair.0.id, recordID: pair.1.id)) }
                    return .value(stored.next() ?? .null)
                }
            }
        } catch {
            throw CoreStoreError.wrap(error)
        }
    }
}

extension QueryCell {
    /// The cell as `queryValue` returns it: `nil` for `nil`, otherwise converted to `T`.
    func converted<T: QueryableAttributeType>(to type: T.Type) throws(CoreStoreError) -> T? {
        switch self {
        case .value(.null):
            return nil
        case .value(let value):
            return try T.cs_fromQueryableValue(value)
        case .objectID(let id):
            guard let typed = id as? T else {
                throw .invalidPredicate(message: "the query result \(id) (an object identifier) cannot be read as \(T.self)")
            }
            return typed
        }
    }

    /// The cell as `queryAttributes` returns it: `nil` to omit, otherwise a natural Swift value.
    var naturalValue: Any? {
        switch self {
        case .objectID(let id): return id
        case .value(let value):
            switch value {
            case .null: return nil
            case .bool(let b): return b
            case .int(let i): return Int(exactly: i) ?? i
            case .double(let d): return d
            case .decimal(let d): return d
            case .string(let s): return s
            case .bytes(let d): return d
            case .date(let d): return d
            case .uuid(let u): return u
            }
        }
    }
}
