/// The one order of records under sort descriptors. Every fetch, every store and every monitor
/// orders with it, so it is defined here and nowhere else.
///
/// Two records compare by their sort-key values, most significant key first:
///
/// 1. each key's values compare by ``Value/storageOrder(_:_:)`` (`nil` first, then numbers
///    compared numerically across `bool`, `int`, `double` and `decimal` with NaN before every
///    other number, then strings by UTF-8 bytes, bytes, dates and UUIDs);
/// 2. a descending key reverses that comparison (so `nil` comes last);
/// 3. records whose sort values are all equal are ordered by **record key, ascending** — the
///    only tie-break, which also orders requests without sort keys.
///
/// Record keys are unique within a store, so the order is total: a limited fetch keeps exactly
/// the first records of the full sort, and a monitor finds positions by binary search. (A list
/// that spans several stores breaks the remaining tie, equal record keys, by store.)
///
/// Backends that sort natively must produce this order; SQLite's `ORDER BY` (one term per key,
/// `nil` and NaN ranked first, then `_key`) is written against it, and the conformance suite
/// checks every backend against ``RecordSorter``, which uses it.
///
/// A value is built once per request; comparing allocates nothing. The comparisons are
/// `@inlinable` so that other modules' sort loops specialize them.
///
/// ```swift
/// let order = RecordOrder([RecordSortDescriptor(key: "age", ascending: false)])
/// order.precedes([.int(30)], key: 4, [.int(30)], key: 7)   // true: equal ages, lower key first
/// ```
public struct RecordOrder: Sendable {
    /// The sort descriptors, most significant first.
    public let sortDescriptors: [RecordSortDescriptor]
    /// Per sort key, whether it ascends.
    @usableFromInline
    let ascending: [Bool]

    /// The order of `sortDescriptors`, ties broken by record key.
    public init(_ sortDescriptors: [RecordSortDescriptor]) {
        self.sortDescriptors = sortDescriptors
        self.ascending = sortDescriptors.map(\.ascending)
    }

    /// The number of sort keys.
    @inlinable
    public var keyCount: Int { ascending.count }

    /// The attribute ordinals of the sort keys in records of `entity`, in key order.
    ///
    /// Throws ``StorageError/unknownKey(key:entity:)`` for the first key that is not an attribute
    /// of `entity`.
    public func ordinals(in entity: String, schema: StoreSchema) throws -> [Int] {
        try sortDescriptors.map { descriptor in
            guard let ordinal = schema.attributeOrdinal(descriptor.key, in: entity) else {
                throw StorageError.unknownKey(key: descriptor.key, entity: entity)
            }
            return ordinal
        }
    }

    // MARK: Comparing

    /// `c`, the storage order of two values of key `k`, as the order of their records by that
    /// key alone: reversed for a descending key, normalized to -1, 0 or 1.
    @inlinable
    func directed(_ c: Int, atKey k: Int) -> Int {
        c == 0 ? 0 : ((c < 0) == ascending[k] ? -1 : 1)
    }

    /// Compares one sort key's values: negative when `a` comes first, zero when they are equal,
    /// positive when `b` comes first (``Value/storageOrder(_:_:)``, reversed for a descending key).
    @inlinable
    public func compare(_ a: Value, _ b: Value, atKey k: Int) -> Int {
        directed(Value.storageOrder(a, b), atKey: k)
    }

    /// Compares two tuples of sort values (one per key), without the record-key tie-break:
    /// negative, zero or positive. Zero means the records sort by the same values.
    @inlinable
    public func compareSortValues(_ a: [Value], _ b: [Value]) -> Int {
        for k in ascending.indices {
            let c = Value.storageOrder(a[k], b[k])
            if c != 0 { return directed(c, atKey: k) }
        }
        return 0
    }

    /// The tie-break of records with equal sort values: ascending record key.
    @inlinable
    public static func compareKeys(_ a: Int64, _ b: Int64) -> Int {
        a == b ? 0 : (a < b ? -1 : 1)
    }

    /// Compares two records, given by their sort values and record keys: negative, zero (the
    /// same record) or positive.
    @inlinable
    public func compare(_ a: [Value], key aKey: Int64, _ b: [Value], key bKey: Int64) -> Int {
        let c = compareSortValues(a, b)
        return c != 0 ? c : Self.compareKeys(aKey, bKey)
    }

    /// Whether the record with sort values `a` and key `aKey` comes before the other one.
    @inlinable
    public func precedes(_ a: [Value], key aKey: Int64, _ b: [Value], key bKey: Int64) -> Bool {
        compare(a, key: aKey, b, key: bKey) < 0
    }

    /// Whether `a` comes before `b`; both are records whose sort keys are at `aOrdinals` and
    /// `bOrdinals` (see ``ordinals(in:schema:)``).
    @inlinable
    public func precedes(_ a: Record, ordinals aOrdinals: [Int], _ b: Record, ordinals bOrdinals: [Int]) -> Bool {
        for k in ascending.indices {
            let c = Value.storageOrder(a.attributes[aOrdinals[k]], b.attributes[bOrdinals[k]])
            if c != 0 { return directed(c, atKey: k) < 0 }
        }
        return Self.compareKeys(a.id.key, b.id.key) < 0
    }
}
