/// Groups a query's rows by the values of one or more attributes: one row per distinct
/// combination, with aggregates computed over each group.
///
/// ```swift
/// try dataStack.queryAttributes(From<Person>(), Select("age", .count("age", as: "count")), GroupBy("age"))
/// try dataStack.queryAttributes(
///     From<Person>().select(NSDictionary.self, .attribute(\.$age), .count(\.$age, as: "count")).groupBy(\.$age)
/// )
/// ```
/// Groups come in the order of the query's sort keys (which must be grouping keys), then by the
/// remaining grouping keys ascending. Every plain attribute the query selects must be a
/// grouping key.
public struct GroupBy<O: CoreStoreObject>: QueryClause, Hashable, Sendable {
    /// The stored keys to group by, in order.
    public let keyPaths: [String]

    /// Groups by these stored keys.
    public init(_ keyPaths: [String]) {
        self.keyPaths = keyPaths
    }

    /// Groups by these stored keys.
    public init(_ keyPath: String, _ otherKeyPaths: String...) {
        self.init([keyPath] + otherKeyPaths)
    }

    /// Groups by these fields: `GroupBy(\.$age)`, `GroupBy(\.$age, \.$name)`.
    public init<each V: FieldStorableType>(_ keyPath: repeat KeyPath<O, FieldDefinition.Stored<each V>>) {
        var keys: [String] = []
        for field in repeat each keyPath {
            keys.append(FieldKeys.key(field, on: O.self))
        }
        self.init(keys)
    }

    /// Appends the keys to the query's grouping keys.
    public func applyToQueryRequest(_ request: inout CoreStoreQueryRequest) {
        request.groupBy += keyPaths
    }
}
