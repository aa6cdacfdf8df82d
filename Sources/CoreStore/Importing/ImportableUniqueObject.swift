/// A model type whose import sources carry an identifier: importing a source whose identifier
/// is already stored updates that object instead of inserting another.
///
/// The identifier lives in a stored field, named by ``uniqueIDKeyPath``. Declare that field in
/// the entity's `uniqueConstraints` so the store keeps it unique and indexed: an import then
/// finds every existing object with one indexed lookup.
///
/// ```swift
/// final class Person: CoreStoreObject, ImportableUniqueObject {
///     @Field.Stored("remoteID") var remoteID: Int = 0
///     @Field.Stored("name") var name: String = ""
///
///     static let uniqueIDKeyPath = String(keyPath: \Person.$remoteID)
///     var uniqueIDValue: Int {
///         get { remoteID }
///         set { remoteID = newValue }
///     }
///
///     static func uniqueID(from source: [String: Any], in transaction: BaseDataTransaction) throws -> Int? {
///         try source.importValue("id", as: Int.self)
///     }
///
///     func update(from source: [String: Any], in transaction: BaseDataTransaction) throws {
///         name = try source.importValue("name", as: String.self)
///     }
/// }
///
/// // Entity<Person>("Person", uniqueConstraints: [[\Person.$remoteID]])
/// ```
public protocol ImportableUniqueObject: ImportableObject {
    /// The type of the identifier.
    associatedtype UniqueIDType: ImportableAttributeType, FieldStorableType

    /// The stored name of the field holding the identifier, for example
    /// `String(keyPath: \Person.$remoteID)`.
    static var uniqueIDKeyPath: String { get }

    /// The object's identifier: reads and writes the field named by ``uniqueIDKeyPath``. An
    /// import sets it on a new object before ``ImportableObject/didInsert(from:in:)``.
    var uniqueIDValue: UniqueIDType { get set }

    /// Whether an existing object should be updated from `source`. Returning `false` leaves
    /// the object as it is and leaves it out of the import's result. The default updates.
    static func shouldUpdate(from source: ImportSource, in transaction: BaseDataTransaction) -> Bool

    /// The identifier `source` carries, or `nil` to skip the source. Throwing abandons the whole
    /// import call (see ``ImportableObject/didInsert(from:in:)``).
    static func uniqueID(from source: ImportSource, in transaction: BaseDataTransaction) throws -> UniqueIDType?

    /// Brings an existing object up to date with `source`. Throwing abandons the whole import
    /// call. Assigning values equal to the stored ones changes nothing: no update is written and
    /// observers hear nothing.
    func update(from source: ImportSource, in transaction: BaseDataTransaction) throws
}

extension ImportableUniqueObject {
    /// Updates every existing object.
    public static func shouldUpdate(from source: ImportSource, in transaction: BaseDataTransaction) -> Bool {
        true
    }

    /// Fills in a new object with ``update(from:in:)``; implement it to insert differently.
    public func didInsert(from source: ImportSource, in transaction: BaseDataTransaction) throws {
        try update(from: source, in: transaction)
    }
}

extension String {
    /// The stored name of a field, for ``ImportableUniqueObject/uniqueIDKeyPath`` and the
    /// string-based clauses: `String(keyPath: \Person.$remoteID)` is `"remoteID"`.
    public init<O: CoreStoreObject, V>(keyPath: KeyPath<O, FieldDefinition.Stored<V>>) {
        self = FieldKeys.key(keyPath, on: O.self)
    }
}
