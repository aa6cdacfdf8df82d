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
