/// The identity of one record inside one store.
///
/// `key` is unique across the whole store (not only across one entity), so a record keeps its
/// identity when fetched through a parent entity. Keys are assigned by the store when a commit
/// inserts a record: before that the core uses *temporary* identifiers with a negative key, and
/// ``ChangeSet/assigningPermanentIDs(startingAt:)`` replaces them inside the write.
public struct RecordID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The concrete (most specific) entity of the record.
    public var entity: String
    /// The store-wide key: positive once permanent, negative while temporary.
    public var key: Int64

    /// Creates an identifier.
    public init(entity: String, key: Int64) {
        self.entity = entity
        self.key = key
    }

    /// Whether this identifier was made by the core for a record not yet committed.
    public var isTemporary: Bool { key < 0 }

    /// Orders identifiers by key: the order a fetch without sort keys returns records in.
    public static func < (lhs: RecordID, rhs: RecordID) -> Bool { lhs.key < rhs.key }

    /// Identifiers are equal when their keys are; the entity name is carried for routing.
    public static func == (lhs: RecordID, rhs: RecordID) -> Bool { lhs.key == rhs.key }

    /// Hashes the key only, consistent with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }

    /// `Entity#key`, for logs.
    public var description: String { "\(entity)#\(key)" }
}
