/// A model type that knows how to fill itself in from an outside source (a decoded JSON
/// object, a CSV row, a record of another store…), so that the mapping is written once and
/// every import reuses it.
///
/// Adopt it on a ``CoreStoreObject`` subclass whose objects have no identity of their own in
/// the source: each import inserts new objects. Use ``ImportableUniqueObject`` when sources
/// carry an identifier and importing them again should update instead of duplicate.
///
/// ```swift
/// final class LogEntry: CoreStoreObject, ImportableObject {
///     @Field.Stored("message") var message: String = ""
///     @Field.Stored("level") var level: Int = 0
///
///     func didInsert(from source: [String: Any], in transaction: BaseDataTransaction) throws {
///         message = try source.importValue("message", as: String.self)
///         level = try source.importOptionalValue("level", as: Int.self) ?? 0
///     }
/// }
///
/// try transaction.importObjects(Into<LogEntry>(), sourceArray: entries)
/// ```
public protocol ImportableObject: AnyObject {
    /// What one object is imported from: any type, such as `[String: Any]` from
    /// `JSONSerialization`, a `Decodable` struct, or a tuple.
    associatedtype ImportSource

    /// Whether `source` should become a new object. Returning `false` skips the source and the
    /// import goes on with the next one. The default imports every source.
    static func shouldInsert(from source: ImportSource, in transaction: BaseDataTransaction) -> Bool

    /// Fills in a newly inserted object from `source`. Throwing abandons the whole import call:
    /// every object it inserted or changed is restored, and the error reaches the caller.
    func didInsert(from source: ImportSource, in transaction: BaseDataTransaction) throws
}

extension ImportableObject {
    /// Imports every source.
    public static func shouldInsert(from source: ImportSource, in transaction: BaseDataTransaction) -> Bool {
        true
    }
}
