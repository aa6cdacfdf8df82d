import CoreStoreStorage

/// The order of fetch results: sort keys, most significant first. Ties keep a stable,
/// backend-independent order.
///
/// ```swift
/// try dataStack.fetchAll(From<Person>().orderBy(.descending(\.$rating), .ascending(\.$name)))
/// var order = OrderBy<Person>(.descending(\.$rating))
/// order += OrderBy(.ascending(\.$age))
/// ```
/// Ascending order puts `nil` first; strings compare by their UTF-8 bytes.
public struct OrderBy<O: CoreStoreObject>: FetchClause {
    /// One sort key.
    public enum SortKey {
        /// Ascending by the stored key.
        case ascending(String)
        /// Descending by the stored key.
        case descending(String)

        /// Ascending by a field.
        public static func ascending<V: FieldStorableType>(_ keyPath: KeyPath<O, FieldDefinition.Stored<V>>) -> SortKey {
            .ascending(FieldKeys.key(keyPath, on: O.self))
        }

        /// Descending by a field.
        public static func descending<V: FieldStorableType>(_ keyPath: KeyPath<O, FieldDefinition.Stored<V>>) -> SortKey {
            .descending(FieldKeys.key(keyPath, on: O.self))
        }

        /// Ascending by the field a closure names on a meta instance: `.ascending({ $0.$name })`.
        public static func ascending<K: KeyPathStringConvertible>(_ attribute: (O) -> K) -> SortKey {
            .ascending(attribute(O(asMeta: ())).cs_keyPathString)
        }

        /// Descending by the field a closure names on a meta instance: `.descending({ $0.$age })`.
        public static func descending<K: KeyPathStringConvertible>(_ attribute: (O) -> K) -> SortKey {
            .descending(attribute(O(asMeta: ())).cs_keyPathString)
        }

        var descriptor: RecordSortDescriptor {
            switch self {
            case .ascending(let key): return RecordSortDescriptor(key: key, ascending: true)
            case .descending(let key): return RecordSortDescriptor(key: key, ascending: false)
            }
        }
    }

    /// The sort keys.
    public let sortKeys: [SortKey]

    /// Sorts by these keys.
    public init(_ sortKeys: [SortKey]) {
        self.sortKeys = sortKeys
    }

    /// Sorts by these keys.
    public init(_ sortKey: SortKey, _ otherSortKeys: SortKey...) {
        self.init([sortKey] + otherSortKeys)
    }

    /// Appends the sort keys to the request's.
    public func applyToFetchRequest(_ request: inout CoreStoreFetchRequest) {
        request.sortDescriptors += sortKeys.map(\.descriptor)
    }

    /// The keys of `lhs`, then those of `rhs`.
    public static func + (lhs: OrderBy, rhs: OrderBy) -> OrderBy {
        OrderBy(lhs.sortKeys + rhs.sortKeys)
    }

    /// Appends the keys of `rhs`.
    public static func += (lhs: inout OrderBy, rhs: OrderBy) {
        lhs = lhs + rhs
    }
}
