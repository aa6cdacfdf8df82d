import CoreStoreStorage

/// A `Sendable` identifier of a stored object, valid across contexts and threads of the
/// `DataStack` it came from.
///
/// Use it to hand an object to another thread or transaction:
/// `transaction.fetchExisting(id) as Person?`.
public struct ObjectID: Hashable, Sendable, CustomStringConvertible {
    /// The store the object lives in (unique within the process).
    let storeID: UInt64
    /// The record's identity inside that store.
    let recordID: RecordID

    init(storeID: UInt64, recordID: RecordID) {
        self.storeID = storeID
        self.recordID = recordID
    }

    /// The stored entity name of the object.
    public var entityName: String { recordID.entity }

    /// Whether the object was inserted by a transaction that has not committed yet.
    public var isTemporary: Bool { recordID.isTemporary }

    /// `Entity#key@store`.
    public var description: String { "\(recordID)@\(storeID)" }

    /// Equal when the store and the key are equal.
    public static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        lhs.storeID == rhs.storeID && lhs.recordID.key == rhs.recordID.key
    }

    /// Hashes the store and the key.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storeID)
        hasher.combine(recordID.key)
    }
}
