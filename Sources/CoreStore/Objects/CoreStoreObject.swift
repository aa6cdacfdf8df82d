import CoreStoreStorage

/// The base class of every model object. Declare properties with ``Field`` wrappers:
///
/// ```swift
/// final class Person: CoreStoreObject {
///     @Field.Stored("name") var name: String = ""
///     @Field.Stored("age") var age: Int = 0
/// }
/// ```
///
/// Objects are never created with an initializer: a transaction's `create(Into<Person>())`
/// inserts one, fetches return existing ones. Each object belongs to one context — the
/// `DataStack`'s read-only view or one transaction — and must only be used there; pass an
/// ``ObjectID`` or use `fetchExisting(_:)` to move between contexts. Objects are not `Sendable`.
///
/// Two references to the same stored object in the same context are the same instance.
open class CoreStoreObject: Hashable, CustomDebugStringConvertible {
    /// The object's state in its context; `nil` for meta instances used by reflection.
    let cs_state: ObjectState?

    /// Creates the object for a context. Called by the framework only.
    public required init(rawObject: RawObject) {
        self.cs_state = rawObject.state
    }

    /// Creates a meta instance, used by the framework to read field declarations. Its properties
    /// read as their initial values and cannot be set.
    public required init(asMeta: Void) {
        self.cs_state = nil
    }

    /// The object's identifier, `nil` for meta instances. An object inserted by a transaction
    /// has a temporary identifier until the transaction commits.
    public func cs_id() -> ObjectID? {
        cs_state?.objectID
    }

    /// Whether the object was deleted (in its transaction, or by a commit seen by its context).
    public func cs_isDeleted() -> Bool {
        cs_state?.isDeletedValue ?? false
    }

    /// Identity: the same instance.
    public static func == (lhs: CoreStoreObject, rhs: CoreStoreObject) -> Bool {
        lhs === rhs
    }

    /// Hashes the instance identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }

    /// The entity, identifier and stored values.
    open var debugDescription: String {
        guard let state = cs_state else { return "\(type(of: self)) (meta)" }
        return state.debugDescription
    }

    /// The state to write `key` into, or `nil` (with an assertion logged) for a meta instance.
    func cs_writableState(forKey key: String) -> ObjectState? {
        guard let state = cs_state else {
            Log.assert(false, "'\(key)' was set on an object that belongs to no context; the value was ignored.")
            return nil
        }
        return state
    }

    /// An opaque handle the framework passes to ``init(rawObject:)``.
    public struct RawObject {
        let state: ObjectState
    }
}
