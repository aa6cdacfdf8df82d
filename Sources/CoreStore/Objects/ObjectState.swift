import Foundation
import CoreStoreStorage

/// The values of one object in one context. All access goes through the context's lock, so an
/// object of the read-only context can be read from any thread while commits merge into it.
final class ObjectState: @unchecked Sendable, CustomDebugStringConvertible {
    weak var context: ObjectContext?
    let lock: NSRecursiveLock
    let entity: EntityMetadata
    let store: AttachedStore
    var recordID: RecordID
    var attributes: [Value]
    var relationships: [[RecordID]]
    /// The last committed version known to the context; `nil` while inserted and uncommitted.
    var committed: Record?
    var isDeleted = false
    weak var object: CoreStoreObject?

    init(context: ObjectContext, entity: EntityMetadata, store: AttachedStore, record: Record, committed: Record?) {
        self.context = context
        self.lock = context.lock
        self.entity = entity
        self.store = store
        self.recordID = record.id
        self.attributes = record.attributes
        self.relationships = record.relationships
        self.committed = committed
    }

    var objectID: ObjectID {
        lock.withLock { ObjectID(storeID: store.id, recordID: recordID) }
    }

    var isDeletedValue: Bool {
        lock.withLock { isDeleted }
    }

    /// The current values as a record (call with the lock held or from the owning context).
    var record: Record {
        Record(id: recordID, attributes: attributes, relationships: relationships)
    }

    func attributeValue(forKey key: String) -> Value {
        lock.withLock {
            guard let ordinal = entity.attributeOrdinal(key) else { return .null }
            return attributes[ordinal]
        }
    }

    func setAttributeValue(_ value: Value, forKey key: String) {
        lock.withLock {
            guard let context, context.checkWritable(self, key: key) else { return }
            guard let ordinal = entity.attributeOrdinal(key) else { return }
            // Assigning the value already held is no change: nothing to commit or observe.
            if attributes[ordinal] == value { return }
            context.journalWillChange(self)
            attributes[ordinal] = value
            context.markChanged(self)
        }
    }

    func relationshipObjects(forKey key: String) -> [CoreStoreObject] {
        lock.withLock {
            guard let ordinal = entity.relationshipOrdinals[key], let context else { return [] }
            return context.objects(for: relationships[ordinal], in: store)
        }
    }

    func setRelationshipObjects(_ objects: [CoreStoreObject], forKey key: String) {
        lock.withLock {
            guard let context, context.checkWritable(self, key: key) else { return }
            guard let ordinal = entity.relationshipOrdinals[key] else { return }
            context.setRelationship(self, ordinal: ordinal, to: objects)
        }
    }

    var debugDescription: String {
        lock.withLock {
            var lines = ["\(entity.type) \(recordID)\(isDeleted ? " (deleted)" : "")\(committed == nil ? " (inserted)" : "") {"]
            for (i, attribute) in entity.description.attributes.enumerated() {
                lines.append("    \(attribute.name): \(attributes[i])")
            }
            for (i, relationship) in entity.description.relationships.enumerated() {
                lines.append("    \(relationship.name): [\(relationships[i].map(\.description).joined(separator: ", "))]")
            }
            lines.append("}")
            return lines.joined(separator: "\n")
        }
    }
}
