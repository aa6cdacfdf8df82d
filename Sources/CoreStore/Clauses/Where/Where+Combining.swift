import CoreStoreStorage

/// `lhs && rhs`, where a `nil` side is left out.
infix operator &&? : LogicalConjunctionPrecedence

/// `lhs || rhs`, where a `nil` side is left out.
infix operator ||? : LogicalDisjunctionPrecedence

extension Where {
    /// Both filters; `rhs == nil` gives `lhs`.
    public static func &&? (lhs: Where, rhs: Where?) -> Where {
        rhs.map { lhs && $0 } ?? lhs
    }

    /// Both filters; `lhs == nil` gives `rhs`.
    public static func &&? (lhs: Where?, rhs: Where) -> Where {
        lhs.map { $0 && rhs } ?? rhs
    }

    /// Either filter; `rhs == nil` gives `lhs`.
    public static func ||? (lhs: Where, rhs: Where?) -> Where {
        rhs.map { lhs || $0 } ?? lhs
    }

    /// Either filter; `lhs == nil` gives `rhs`.
    public static func ||? (lhs: Where?, rhs: Where) -> Where {
        lhs.map { $0 || rhs } ?? rhs
    }
}

extension Sequence {
    /// All the filters joined by AND; an empty sequence keeps every object.
    public func combinedByAnd<O>() -> Where<O> where Element == Where<O> {
        reduce(Where<O>(true)) { $0 && $1 }
    }

    /// All the filters joined by OR; an empty sequence keeps no object.
    public func combinedByOr<O>() -> Where<O> where Element == Where<O> {
        reduce(Where<O>(false)) { $0 || $1 }
    }
}

/// A filter joined by OR with the filters of the clauses before it.
struct WhereDisjunction<O: CoreStoreObject>: FetchClause {
    let clause: Where<O>

    func applyToFetchRequest(_ request: inout CoreStoreFetchRequest) {
        if let error = clause.error, request.error == nil {
            request.error = error
        }
        request.predicate = request.predicate.map { $0 || clause.predicate } ?? clause.predicate
    }
}

extension FetchChainBuilder {
    /// Adds a filter joined by AND with the earlier ones (the same as `where(_:)`).
    public func `where`(combineByAnd clause: Where<O>) -> FetchChainBuilder<O> {
        appending(clause)
    }

    /// Adds a filter joined by OR with the earlier ones: the chain keeps objects that match
    /// the earlier filters or this one.
    public func `where`(combineByOr clause: Where<O>) -> FetchChainBuilder<O> {
        appending(WhereDisjunction(clause: clause))
    }
}
