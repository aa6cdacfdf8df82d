import CoreStoreStorage

/// One column of a query: an attribute's value, an aggregate of an attribute, the number of an
/// object's related objects, or the object's identifier.
///
/// ```swift
/// Select<Person, NSDictionary>("name", .count(\.$friends, as: "friendsCount"))
/// Select<Person, Int>(.maximum(\.$age))
/// Select<Person, NSDictionary>(.attribute(\.$age), .average("age"), .objectID())
/// ```
/// Each term has a key in `queryAttributes` dictionaries: its alias when given, otherwise
/// `"age"`, `"average(age)"`, `"count(age)"`, `"max(age)"`, `"min(age)"`, `"sum(age)"` or
/// `"objectID"`. A string literal is an `attribute(_:as:)` term.
///
/// An aggregate of an attribute makes the query *grouped*: it yields one row per `GroupBy` group
/// (one row in all without `GroupBy`), and every plain attribute it selects must be a grouping key.
public struct SelectTerm<O: CoreStoreObject>: ExpressibleByStringLiteral, Hashable, Sendable {
    let term: QueryTerm

    private init(_ function: QueryTerm.Function, _ keyPath: String, alias: String?) {
        let name: String
        switch function {
        case .storage(.value): name = keyPath
        case .storage(let aggregate): name = "\(QueryTerm.functionName(aggregate))(\(keyPath))"
        case .objectID: name = "objectID"
        }
        self.term = QueryTerm(function: function, key: keyPath, alias: alias ?? name)
    }

    /// The stored key the term reads (empty for ``objectID(as:)``).
    public var keyPath: String { term.key }

    /// The term's key in `queryAttributes` dictionaries.
    public var alias: String { term.alias }

    /// An attribute by its stored key: `"name"` is the same term.
    public init(stringLiteral keyPath: String) {
        self.init(.storage(.value), keyPath, alias: nil)
    }

    /// The value of an attribute.
    public static func attribute(_ keyPath: String, as alias: String? = nil) -> SelectTerm {
        SelectTerm(.storage(.value), keyPath, alias: alias)
    }

    /// The value of a field.
    public static func attribute<V: FieldStorableType>(_ keyPath: KeyPath<O, FieldDefinition.Stored<V>>, as alias: String? = nil) -> SelectTerm {
        .attribute(FieldKeys.key(keyPath, on: O.self), as: alias)
    }

    /// The mean of a numeric attribute's non-`nil` values (a `Double`, or a `Decimal` for
    /// decimal attributes); `nil` when there are none.
    public static func average(_ keyPath: String, as alias: String? = nil) -> SelectTerm {
        SelectTerm(.storage(.average), keyPath, alias: alias)
    }

    /// The mean of a numeric field's non-`nil` values.
    public static func average<V: FieldStorableType>(_ keyPath: KeyPath<O, FieldDefinition.Stored<V>>, as alias: String? = nil) -> SelectTerm {
        .average(FieldKeys.key(keyPath, on: O.self), as: alias)
    }

    /// The number of non-`nil` values of an attribute; for a relationship key, the number of
    /// each object's related objects (an ungrouped query, one row per object).
    public static func count(_ keyPath: String, as alias: String? = nil) -> SelectTerm {
        SelectTerm(.storage(.count), keyPath, alias: alias)
    }

    /// The number of non-`nil` values of a field.
    public static func count<V: FieldStorableType>(_ keyPath: KeyPath<O, FieldDefinition.Stored<V>>, as alias: String? = nil) -> SelectTerm {
        .count(FieldKeys.key(keyPath, on: O.self), as: alias)
    }

    /// The number of each object's related objects, one row per object.
    public static func count<V: FieldRelationshipType>(_ keyPath: KeyPath<O, FieldDefinition.Relationship<V>>, as alias: String? = nil) -> SelectTerm {
        .count(FieldKeys.key(keyPath, on: O.self), as: alias)
    }

    /// The largest non-`nil` value of an attribute (NaN skipped); `nil` when there is none.
    public static func maximum(_ keyPath: String, as alias: String? = nil) -> SelectTerm {
        SelectTerm(.storage(.maximum), keyPath, alias: alias)
    }

    /// The largest non-`nil` value of a field.
    public static func maximum<V: FieldStorableType>(_ keyPath: KeyPath<O, FieldDefinition.Stored<V>>, as alias: String? = nil) -> SelectTerm {
        .maximum(FieldKeys.key(keyPath, on: O.self), as: alias)
    }

    /// The smallest non-`nil` value of an attribute (NaN skipped); `nil` when there is none.
    public static func minimum(_ keyPath: String, as alias: String? = nil) -> SelectTerm {
        SelectTerm(.storage(.minimum), keyPath, alias: alias)
    }

    /// The smallest non-`nil` value of a field.
    public static func minimum<V: FieldStorableType>(_ keyPath: KeyPath<O, FieldDefinition.Stored<V>>, as alias: String? = nil) -> SelectTerm {
        .minimum(FieldKeys.key(keyPath, on: O.self), as: alias)
    }

    /// The sum of a numeric attribute's non-`nil` values: exact for integers (overflow is an
    /// error), a `Double` for doubles, a `Decimal` for decimals; `nil` when there are none.
    public static func sum(_ keyPath: String, as alias: String? = nil) -> SelectTerm {
        SelectTerm(.storage(.sum), keyPath, alias: alias)
    }

    /// The sum of a numeric field's non-`nil` values.
    public static func sum<V: FieldStorableType>(_ keyPath: KeyPath<O, FieldDefinition.Stored<V>>, as alias: String? = nil) -> SelectTerm {
        .sum(FieldKeys.key(keyPath, on: O.self), as: alias)
    }

    /// The object's ``ObjectID`` (ungrouped queries only).
    public static func objectID(as alias: String? = nil) -> SelectTerm {
        SelectTerm(.objectID, "", alias: alias)
    }
}

/// A select term without its object type, as the query execution sees it.
struct QueryTerm: Hashable, Sendable {
    enum Function: Hashable, Sendable {
        /// Answered by the stores: a value or an aggregate.
        case storage(AggregateFunction)
        /// The object identifier, added by the core.
        case objectID
    }

    var function: Function
    var key: String
    var alias: String

    /// The spelling of an aggregate in default keys and messages.
    static func functionName(_ function: AggregateFunction) -> String {
        switch function {
        case .value: return "value"
        case .count: return "count"
        case .sum: return "sum"
        case .average: return "average"
        case .minimum: return "min"
        case .maximum: return "max"
        }
    }
}
