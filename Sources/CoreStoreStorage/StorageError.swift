/// A failure reported by a storage engine. The user API wraps it in `CoreStoreError`.
public enum StorageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The store was used before ``StorageInterface/open(schema:)`` or after `close()`.
    case notOpen(store: String)
    /// The request names an entity the store's schema does not have.
    case unknownEntity(String)
    /// The request names a key the entity does not have.
    case unknownKey(key: String, entity: String)
    /// The request is malformed in another way.
    case invalidRequest(String)
    /// A write would break a uniqueness constraint; nothing was written.
    case uniqueConstraintViolation(entity: String, attributes: [String], values: [Value])
    /// A write refers to a record that does not exist; nothing was written.
    case recordNotFound(RecordID)
    /// A write cannot be merged with what another commit stored meanwhile (it relates to a record
    /// that no longer exists or is of another entity, or the merged relationship breaks its
    /// bounds); nothing was written.
    case conflict(RecordID, reason: String)
    /// The file or directory is not this kind of store, or is damaged; it was left untouched.
    case incompatibleStore(path: String, reason: String)
    /// The engine reported an error; `message` is the engine's own.
    case engine(code: Int, message: String)

    /// A message that names the problem.
    public var description: String {
        switch self {
        case .notOpen(let store):
            return "The store \(store) is not open."
        case .unknownEntity(let name):
            return "The store has no entity named '\(name)'."
        case .unknownKey(let key, let entity):
            return "The entity '\(entity)' has no attribute or relationship named '\(key)'."
        case .invalidRequest(let message):
            return "Invalid request: \(message)"
        case .uniqueConstraintViolation(let entity, let attributes, let values):
            return "Uniqueness constraint on \(entity)(\(attributes.joined(separator: ", "))) violated by values (\(values.map(\.description).joined(separator: ", ")))."
        case .recordNotFound(let id):
            return "The record \(id) does not exist."
        case .conflict(let id, let reason):
            return "The commit conflicts with what is stored: \(id) \(reason). Nothing was written."
        case .incompatibleStore(let path, let reason):
            return "The store at \(path) cannot be opened: \(reason). It was left untouched."
        case .engine(let code, let message):
            return "The storage engine failed (code \(code)): \(message)"
        }
    }
}
