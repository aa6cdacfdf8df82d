import CoreStoreStorage

/// An object seen as the framework's state of one record in one context. The state lives in the
/// object itself (one allocation per object); this name marks the code that works with it.
///
/// The values (`recordID`, `attributes`, `relationships`, `committed`, `isDeleted`) follow one
/// rule: **a write holds the context's lock and the object's `valuesLock`; a read holds
/// either.** The context's own code reads under its lock; property getters take only the
/// object's lock, so readers on many threads never wait for each other or for a commit (a merge
/// holds one object's lock for one assignment).
typealias ObjectState = CoreStoreObject

extension CoreStoreObject {
    var objectID: ObjectID {
        let recordID = valuesLock.withLock { self.recordID }
        return ObjectID(storeID: store.id, recordID: recordID)
    }

    var isDeletedValue: Bool {
        valuesLock.withLock { isDeleted }
    }

    /// The current values as a record (call with one of the two locks held).
    var record: Record {
        Record(id: recordID, attributes: attributes, relationships: relationships)
    }

    /// The last committed version known to the context; `nil` while inserted and uncommitted
    /// (call with one of the two locks held).
    var committed: Record? {
        get { valuesAreCommitted ? record : committedCopy }
        set {
            committedCopy = newValue
            valuesAreCommitted = false
        }
    }

    /// The committed version kept apart from the values (see ``committedBox``).
    var committedCopy: Record? {
        get { committedBox?.record }
        set { committedBox = newValue.map(CommittedRecord.init) }
    }

    /// Whether the object has a committed version (it is not an uncommitted insert): the
    /// same as `committed != nil`, without making the record.
    var hasCommittedVersion: Bool {
        valuesAreCommitted || committedBox != nil
    }

    /// Notes that the current values are the committed version (call inside `updateValues`).
    func markValuesCommitted() {
        committedBox = nil
        valuesAreCommitted = true
    }

    /// Changes the values (call with the context's lock held). Values that were the committed
    /// version are first kept as ``committedCopy``, so ``committed`` still answers it.
    @inline(__always)
    func updateValues(_ body: () -> Void) {
        valuesLock.withLock {
            if valuesAreCommitted {
                committedBox = CommittedRecord(record)
                valuesAreCommitted = false
            }
            body()
        }
    }

    /// Whether two arrays are one buffer (then they are equal); reads no element.
    private static func sharesStorage<Element>(_ a: [Element], _ b: [Element]) -> Bool {
        a.count == b.count && a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { a.baseAddress == $0.baseAddress } }
    }

    /// Takes the values of a committed record (call with the context's lock held).
    func adopt(_ record: Record) {
        withUnsafePointer(to: record) { adopt(recordAt: $0) }
    }

    /// ``adopt(_:)`` for a record read in place (a commit's merged inserts): passing an element
    /// of a buffer by value would copy it (retaining its arrays) for the call.
    func adopt(recordAt record: UnsafePointer<Record>) {
        // The record replaces the committed version as well as the values, so the values are
        // not first kept as the committed copy (``updateValues(_:)``), only to drop it again.
        valuesLock.withLock {
            // Mostly the very arrays the object already holds (an insert's attributes go to the
            // store and come back as they were): then nothing is reassigned, which would retain
            // and release buffers that, after a large commit, are out of the cache.
            if !Self.sharesStorage(attributes, record.pointee.attributes) { attributes = record.pointee.attributes }
            if !Self.sharesStorage(relationships, record.pointee.relationships) { relationships = record.pointee.relationships }
            if record.pointee.id == recordID {
                committedBox = nil
                valuesAreCommitted = true
            } else {
                committedBox = CommittedRecord(record.pointee)
                valuesAreCommitted = false
            }
        }
    }

    /// Marks the object deleted by a commit (call with the context's lock held). Its values
    /// stay what they were, and so does the committed version they are or keep.
    func markDeletedByCommit() {
        valuesLock.withLock { isDeleted = true }
    }

    /// The value of attribute `key`, `.null` if the entity has no such attribute, `nil` for a
    /// meta instance. The path of every property getter: the object's lock only.
    @inline(__always)
    func storedValue(forKey key: String) -> Value? {
        guard attributeKeys != nil else { return nil }
        guard let ordinal = attributeOrdinal(forKey: key) else { return .null }
        return valuesLock.withLock { attributes[ordinal] }
    }

    /// The ordinal of attribute `key` of this object's entity; `nil` for a meta instance or an
    /// unknown key. Inlined into the property getters: a few compares, no call.
    @inlinable @inline(__always)
    final func attributeOrdinal(forKey key: String) -> Int? {
        guard let attributeKeys else { return nil }
        return attributeKeys.ordinal(of: key) ?? attributeOrdinal(spelledAs: key)
    }

    /// The ordinal of attribute `key` spelled by another string than the schema's (a dictionary
    /// lookup), out of line.
    @usableFromInline
    final func attributeOrdinal(spelledAs key: String) -> Int? {
        guard let entityReference else { return nil }
        return entityReference._withUnsafeGuaranteedRef { $0.attributeOrdinals[key] }
    }

    func attributeValue(forKey key: String) -> Value {
        guard let ordinal = attributeOrdinal(forKey: key) else { return .null }
        return valuesLock.withLock { attributes[ordinal] }
    }

    func setAttributeValue(_ value: Value, forKey key: String) {
        // Borrowed, as in ``setAttributeValue(_:ordinal:)``.
        guard let borrowed = context.map(Unmanaged.passUnretained) else { return }
        borrowed._withUnsafeGuaranteedRef { context in
            context.lock.withLock {
                guard context.checkWritable(self, key: key) else { return }
                guard let ordinal = attributeOrdinal(forKey: key) else { return }
                setAttributeValueLocked(value, ordinal: ordinal, context: context)
            }
        }
    }

    /// Sets the attribute at `ordinal` (of the object's entity): what a property setter calls
    /// once it has found the ordinal from its field's key, as the getter does (no copy or
    /// lookup of the key string). Ignored, with the misuse reported, like
    /// ``setAttributeValue(_:forKey:)``, on a meta instance or where the object cannot change.
    @usableFromInline
    final func setAttributeValue(_ value: Value, ordinal: Int) {
        guard let borrowed = context.map(Unmanaged.passUnretained) else {
            Log.assert(false, "An attribute was set on an object that belongs to no context; the value was ignored.")
            return
        }
        // The context borrowed, not retained: the object holds it for as long as this call
        // runs, and a transaction filling objects sets one field after another (each retain
        // and release is an atomic operation).
        borrowed._withUnsafeGuaranteedRef { context in
            context.lock.withLock {
                guard context.checkWritable(self, attributeOrdinal: ordinal) else { return }
                setAttributeValueLocked(value, ordinal: ordinal, context: context)
            }
        }
    }

    /// The change itself, with the context's lock held and the object writable.
    private func setAttributeValueLocked(_ value: Value, ordinal: Int, context: ObjectContext) {
        guard hasCommittedVersion else {
            // An inserted object: nothing is committed to compare with or to keep, and nothing
            // observes it yet, so the value is assigned without first comparing it with the one
            // it replaces (a transaction filling new objects does little else).
            context.journalWillChange(self)
            valuesLock.withLock { attributes[ordinal] = value }
            return
        }
        // Assigning the value already held is no change: nothing to commit or observe.
        if attributes[ordinal] == value { return }
        context.journalWillChange(self)
        updateValues { attributes[ordinal] = value }
        context.markChanged(self)
    }

    func relationshipObjects(forKey key: String) -> [CoreStoreObject] {
        guard let context, let ordinal = entity.relationshipOrdinals[key] else { return [] }
        let ids = valuesLock.withLock { relationships[ordinal] }
        return context.objects(for: ids, in: store)
    }

    func setRelationshipObjects(_ objects: [CoreStoreObject], forKey key: String) {
        guard let context else { return }
        context.lock.withLock {
            guard context.checkWritable(self, key: key) else { return }
            guard let ordinal = entity.relationshipOrdinals[key] else { return }
            context.setRelationship(self, ordinal: ordinal, to: objects)
        }
    }

    var stateDescription: String {
        let (record, isDeleted, isInserted) = valuesLock.withLock { (self.record, self.isDeleted, !hasCommittedVersion) }
        var lines = ["\(entity.type) \(record.id)\(isDeleted ? " (deleted)" : "")\(isInserted ? " (inserted)" : "") {"]
        for (i, attribute) in entity.description.attributes.enumerated() {
            lines.append("    \(attribute.name): \(record.attributes[i])")
        }
        for (i, relationship) in entity.description.relationships.enumerated() {
            lines.append("    \(relationship.name): [\(record.relationships[i].map(\.description).joined(separator: ", "))]")
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }
}

/// A committed version an object keeps beside its changed values (see
/// ``CoreStoreObject/committedBox``).
final class CommittedRecord {
    let record: Record

    init(_ record: Record) {
        self.record = record
    }
}
