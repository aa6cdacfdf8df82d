import CoreStoreStorage

/// The base class of every model object. Declare properties with `@Field` wrappers (``FieldContainer``):
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
///
/// An object is one allocation: its identity and its values live in the instance itself (see
/// `ObjectState.swift` for the rules that guard them).
open class CoreStoreObject: Hashable, CustomDebugStringConvertible {
    // The order of these stored properties is their order in memory. What a property getter
    // reads and writes (the lock, the attribute keys, the values) comes first, in the cache
    // line the reference count is in: threads reading the same objects then pass one line
    // back and forth between their cores instead of two.

    /// Guards the values against a reader on another thread (see `ObjectState.swift`). One
    /// byte, declared beside the flags so that it takes no word of its own.
    @usableFromInline let valuesLock = ValuesLock()
    /// Whether the current values are the last committed version: the common case (fetched,
    /// unchanged), which needs no copy of the record. The first change copies them into
    /// ``committedCopy`` (see `updateValues`).
    @exclusivity(unchecked) var valuesAreCommitted: Bool
    /// Whether the object was deleted (in its transaction, or by a commit its context merged).
    @exclusivity(unchecked) var isDeleted: Bool
    /// The entity's ``AttributeKeys`` (`nil` only for meta instances), read by property getters.
    @usableFromInline let attributeKeys: AttributeKeys?
    /// The current attribute values, in the entity's attribute order.
    @usableFromInline @exclusivity(unchecked) final var attributes: [Value]
    /// The context the object belongs to; `nil` for meta instances used by reflection.
    let context: ObjectContext?
    /// The object's entity (`nil` only for meta instances). Not retained: the context the
    /// object holds keeps its model, and with it every entity, alive; so reading a property on
    /// many threads never touches the entity's reference count.
    var entity: EntityMetadata! { entityReference?.takeUnretainedValue() }
    /// ``entity``, unretained (see there); property getters borrow it without touching its
    /// reference count.
    let entityReference: Unmanaged<EntityMetadata>?
    /// The store the object lives in (`nil` only for meta instances).
    let store: AttachedStore!
    /// The record's identity; temporary until the inserting transaction commits.
    @exclusivity(unchecked) var recordID: RecordID
    /// The current destinations of each relationship, in the entity's relationship order.
    @exclusivity(unchecked) var relationships: [[RecordID]]
    /// The last committed version known to the context, when it is not the current values
    /// (see ``valuesAreCommitted``); `nil` while inserted and uncommitted. Boxed: most objects
    /// never have one, and a box costs them one word where a record took five.
    @exclusivity(unchecked) var committedBox: CommittedRecord?
    /// The primitive values of virtual fields (`ObjectProxy.FieldProxy.primitiveValue`), kept
    /// in memory only; guarded by ``valuesLock``.
    @exclusivity(unchecked) var transientValues = [String: Any]()

    /// Creates the object for a context. Called by the framework only.
    public required init(rawObject: RawObject) {
        self.context = rawObject.context.takeUnretainedValue()
        self.entityReference = rawObject.entity
        self.attributeKeys = rawObject.entity._withUnsafeGuaranteedRef { $0.attributeKeys }
        self.store = rawObject.store.takeUnretainedValue()
        let record = rawObject.record
        if rawObject.takesRecord {
            // Moved, not copied: no reference count of the record's buffers (nor of its entity
            // name, when that is too long to be stored inline) changes, here or when the
            // caller's array goes (in a large fetch, they are out of the cache by now).
            var id = RecordID(entity: "", key: 0), attributes: [Value] = [], relationships: [[RecordID]] = []
            swap(&id, &record.pointee.id)
            swap(&attributes, &record.pointee.attributes)
            swap(&relationships, &record.pointee.relationships)
            self.recordID = id
            self.attributes = attributes
            self.relationships = relationships
        } else {
            self.recordID = record.pointee.id
            self.attributes = record.pointee.attributes
            self.relationships = record.pointee.relationships
        }
        self.committedBox = nil
        self.valuesAreCommitted = rawObject.isCommitted
        self.isDeleted = rawObject.isDeleted
    }

    /// Creates a meta instance, used by the framework to read field declarations. Its properties
    /// read as their initial values and cannot be set.
    public required init(asMeta: Void) {
        self.context = nil
        self.entityReference = nil
        self.attributeKeys = nil
        self.store = nil
        self.recordID = RecordID(entity: "", key: 0)
        self.attributes = []
        self.relationships = []
        self.committedBox = nil
        self.valuesAreCommitted = false
        self.isDeleted = false
    }

    /// The object's identifier, `nil` for meta instances. An object inserted by a transaction
    /// has a temporary identifier until the transaction commits.
    public func cs_id() -> ObjectID? {
        guard context != nil else { return nil }
        return objectID
    }

    /// Whether the object was deleted (in its transaction, or by a commit seen by its context).
    public func cs_isDeleted() -> Bool {
        guard context != nil else { return false }
        return isDeletedValue
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
        guard context != nil else { return "\(type(of: self)) (meta)" }
        return stateDescription
    }

    /// The object itself as the state of a context's object, or `nil` for a meta instance.
    var cs_state: ObjectState? {
        context == nil ? nil : self
    }

    /// The state to write `key` into, or `nil` (with an assertion logged) for a meta instance.
    func cs_writableState(forKey key: String) -> ObjectState? {
        guard let state = cs_state else {
            Log.assert(false, "'\(key)' was set on an object that belongs to no context; the value was ignored.")
            return nil
        }
        return state
    }

    /// An opaque handle the framework passes to ``init(rawObject:)``, valid only during that
    /// call.
    ///
    /// It borrows what it carries (the framework holds all of it for the call), so making an
    /// object costs no reference counting beyond what the object itself keeps.
    public struct RawObject {
        let context: Unmanaged<ObjectContext>
        let entity: Unmanaged<EntityMetadata>
        let store: Unmanaged<AttachedStore>
        /// The record; written only when ``takesRecord``.
        let record: UnsafeMutablePointer<Record>
        /// Whether the object takes the record's identifier, attributes and relationships,
        /// leaving empty ones behind (the record came from a fetch's result array, which is
        /// dropped next: read nothing of it after the object is made).
        let takesRecord: Bool
        /// Whether ``record`` is what is stored (`false` for an object inserted by a transaction).
        let isCommitted: Bool
        let isDeleted: Bool
    }
}
