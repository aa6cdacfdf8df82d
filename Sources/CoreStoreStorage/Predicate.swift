/// A filter on records, as a tree every backend can translate or evaluate.
///
/// The user API builds these from `Where` clauses. ``PredicateEvaluator`` defines what each node
/// means; a backend that pushes a predicate down must return exactly the records the evaluator
/// would keep.
public indirect enum RecordPredicate: Sendable, Hashable {
    /// Always true (`TRUEPREDICATE`) or always false (`FALSEPREDICATE`).
    case constant(Bool)
    /// True when the operand is false.
    case not(RecordPredicate)
    /// True when every operand is true (an empty `and` is true).
    case and([RecordPredicate])
    /// True when any operand is true (an empty `or` is false).
    case or([RecordPredicate])
    /// A comparison of a key path with a constant.
    case comparison(Comparison)

    /// `lhs && rhs`, flattening nested conjunctions.
    public static func && (lhs: RecordPredicate, rhs: RecordPredicate) -> RecordPredicate {
        switch (lhs, rhs) {
        case (.constant(true), _): return rhs
        case (_, .constant(true)): return lhs
        case (.and(let a), .and(let b)): return .and(a + b)
        case (.and(let a), _): return .and(a + [rhs])
        case (_, .and(let b)): return .and([lhs] + b)
        default: return .and([lhs, rhs])
        }
    }

    /// `lhs || rhs`, flattening nested disjunctions.
    public static func || (lhs: RecordPredicate, rhs: RecordPredicate) -> RecordPredicate {
        switch (lhs, rhs) {
        case (.constant(false), _): return rhs
        case (_, .constant(false)): return lhs
        case (.or(let a), .or(let b)): return .or(a + b)
        case (.or(let a), _): return .or(a + [rhs])
        case (_, .or(let b)): return .or([lhs] + b)
        default: return .or([lhs, rhs])
        }
    }

    /// `!operand`.
    public static prefix func ! (operand: RecordPredicate) -> RecordPredicate {
        if case .not(let inner) = operand { return inner }
        return .not(operand)
    }
}

/// How a comparison relates its key path to its constant.
public enum ComparisonOperator: String, Sendable, Hashable {
    /// `==`
    case equal = "=="
    /// `!=`
    case notEqual = "!="
    /// `<`
    case less = "<"
    /// `<=`
    case lessOrEqual = "<="
    /// `>`
    case greater = ">"
    /// `>=`
    case greaterOrEqual = ">="
    /// `IN`: the operand is a ``Operand/list(_:)``.
    case `in` = "IN"
    /// `BETWEEN`: the operand is a two-element ``Operand/list(_:)``, bounds included.
    case between = "BETWEEN"
    /// `BEGINSWITH`
    case beginsWith = "BEGINSWITH"
    /// `ENDSWITH`
    case endsWith = "ENDSWITH"
    /// `CONTAINS` (substring)
    case contains = "CONTAINS"
    /// `LIKE`, with `*` for any run of characters and `?` for one character.
    case like = "LIKE"
    /// `MATCHES`: the whole string matches a regular expression.
    case matches = "MATCHES"
}

/// String comparison modifiers (`[c]`, `[d]`, `[cd]`).
public struct StringComparisonOptions: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: UInt8
    /// Creates options from raw bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// `[c]`: compare after Unicode case folding.
    public static let caseInsensitive = StringComparisonOptions(rawValue: 1)
    /// `[d]`: compare after removing diacritics.
    public static let diacriticInsensitive = StringComparisonOptions(rawValue: 2)
}

/// The right-hand side of a comparison.
public enum Operand: Sendable, Hashable {
    /// One constant.
    case value(Value)
    /// Several constants (for `IN` and `BETWEEN`).
    case list([Value])
    /// Record identifiers (for comparing a relationship with objects).
    case records([RecordID])
}

/// How a comparison treats the several values a key path reaches through to-many relationships.
///
/// A key path reaches a *collection of leaves*: every to-many hop fans out to each destination
/// (an empty to-many contributes no leaf), and a to-one hop with no destination contributes one
/// `nil` leaf. A path without to-many hops always reaches exactly one leaf.
public enum Quantifier: String, Sendable, Hashable {
    /// True when at least one leaf satisfies the comparison (`ANY`, `SOME`, and the default).
    case any = "ANY"
    /// True when every leaf satisfies the comparison; true when there are no leaves (`ALL`).
    case all = "ALL"
    /// True when no leaf satisfies the comparison; true when there are no leaves (`NONE`).
    case none = "NONE"
}

/// A function applied to what a key path reaches before comparing.
public enum KeyPathFunction: String, Sendable, Hashable {
    /// `@count`: the key path ends at a relationship, and each leaf is the number of its
    /// destinations (an `int`; `0` for a missing to-one owner).
    case count = "@count"
}

/// `keyPath operator operand`, for example `age >= 30`, `name BEGINSWITH[c] "jo"`,
/// `ANY pets.name == "Rex"` or `pets.@count > 2`.
public struct Comparison: Sendable, Hashable {
    /// The key path, one component per relationship hop, ending at an attribute or relationship.
    public var keyPath: [String]
    /// The operator.
    public var op: ComparisonOperator
    /// The constant side.
    public var operand: Operand
    /// String modifiers.
    public var options: StringComparisonOptions
    /// How the leaves the key path reaches are combined.
    public var quantifier: Quantifier
    /// A function applied to the key path's last relationship, such as `@count`.
    public var function: KeyPathFunction?

    /// Creates a comparison.
    public init(
        _ keyPath: [String], _ op: ComparisonOperator, _ operand: Operand, options: StringComparisonOptions = [],
        quantifier: Quantifier = .any, function: KeyPathFunction? = nil
    ) {
        self.keyPath = keyPath
        self.op = op
        self.operand = operand
        self.options = options
        self.quantifier = quantifier
        self.function = function
    }

    /// Creates a comparison on a single key.
    public init(_ key: String, _ op: ComparisonOperator, _ value: Value, options: StringComparisonOptions = []) {
        self.init([key], op, .value(value), options: options)
    }
}

/// One sort key.
public struct RecordSortDescriptor: Sendable, Hashable {
    /// The attribute to sort by.
    public var key: String
    /// Ascending (nil first) or descending (nil last).
    public var ascending: Bool

    /// Creates a sort key.
    public init(key: String, ascending: Bool) {
        self.key = key
        self.ascending = ascending
    }
}
