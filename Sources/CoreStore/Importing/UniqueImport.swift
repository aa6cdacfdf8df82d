import CoreStoreStorage

/// One call of ``BaseDataTransaction/importUniqueObjects(_:sourceArray:preProcess:)``: collects
/// the sources by unique ID, finds the existing objects with one lookup, then updates or
/// inserts in the order of the IDs.
struct UniqueImport<O: CoreStoreObject & ImportableUniqueObject> {
    let transaction: BaseDataTransaction
    let into: Into<O>

    func run<S: Sequence>(
        _ sourceArray: S,
        preProcess: ([O.UniqueIDType: O.ImportSource]) throws -> [O.UniqueIDType: O.ImportSource]
    ) throws -> [O] where S.Element == O.ImportSource {
        let (entity, store) = try transaction.insertionStore(into)
        let ordinal = try uniqueIDOrdinal(entity)

        // 1. Sources by ID: first position, last source.
        var order: [O.UniqueIDType] = []
        var sources: [O.UniqueIDType: O.ImportSource] = [:]
        var sourceIndexes: [O.UniqueIDType: Int] = [:]
        for (index, source) in sourceArray.enumerated() {
            guard let id = try transaction.atSource(index, of: O.self, { try O.uniqueID(from: source, in: transaction) }) else { continue }
            if sources.updateValue(source, forKey: id) == nil { order.append(id) }
            sourceIndexes[id] = index
        }

        // 2. The caller's edits.
        if !sources.isEmpty {
            sources = try preProcess(sources)
            let payload = Set(order)
            order = order.filter { sources[$0] != nil }
            let added = sources.keys.filter { !payload.contains($0) }
            order += added.sorted { $0.cs_toStoredValue() < $1.cs_toStoredValue() }
        }
        if order.isEmpty { return [] }

        // 3. One lookup for every ID.
        var existing = try existingObjects(order, entity: entity, ordinal: ordinal, store: store)

        // 4. Update or insert, in ID order.
        var result: [O] = []
        result.reserveCapacity(order.count)
        for id in order {
            guard let source = sources[id] else { continue }
            try transaction.atSource(sourceIndexes[id], of: O.self) {
                if let object = existing[id] {
                    guard O.shouldUpdate(from: source, in: transaction) else { return }
                    try object.update(from: source, in: transaction)
                    result.append(object)
                } else {
                    guard O.shouldInsert(from: source, in: transaction) else { return }
                    let object = try transaction.insertObject(O.self, entity: entity, into: store)
                    object.uniqueIDValue = id
                    try object.didInsert(from: source, in: transaction)
                    existing[id] = object
                    result.append(object)
                }
            }
        }
        return result
    }

    /// The ordinal of the attribute ``ImportableUniqueObject/uniqueIDKeyPath`` names, checked
    /// against ``ImportableUniqueObject/UniqueIDType``.
    private func uniqueIDOrdinal(_ entity: EntityMetadata) throws(CoreStoreError) -> Int {
        let key = O.uniqueIDKeyPath
        let attributes = entity.description.attributes
        guard let ordinal = entity.attributeOrdinal(key) else {
            throw .invalidSchema(message: "\(O.self).uniqueIDKeyPath is '\(key)', which is not a stored attribute of '\(entity.name)' (its attributes: \(attributes.map(\.name).joined(separator: ", ")))")
        }
        let attribute = attributes[ordinal]
        guard attribute.type == O.UniqueIDType.cs_attributeType else {
            throw .invalidSchema(message: "'\(entity.name).\(key)' stores \(attribute.type) values, but \(O.self).UniqueIDType is \(O.UniqueIDType.self)")
        }
        if !attribute.isIndexed {
            UnindexedUniqueIDWarning.once(entity: entity.name, key: key)
        }
        return ordinal
    }

    /// The objects of `store` (stored or pending in the transaction, not deleted) whose
    /// current unique ID is one of `ids`, by ID.
    private func existingObjects(
        _ ids: [O.UniqueIDType], entity: EntityMetadata, ordinal: Int, store: AttachedStore
    ) throws -> [O.UniqueIDType: O] {
        let context = transaction.context
        let wanted = Set(ids)
        var found: [O.UniqueIDType: O] = [:]
        found.reserveCapacity(ids.count)
        func consider(_ state: ObjectState) {
            guard !state.isDeleted, let object = state as? O,
                  let id = O.UniqueIDType.cs_fromStoredValue(state.attributes[ordinal]),
                  wanted.contains(id), found[id] == nil else { return }
            found[id] = object
        }
        // Stored objects: one fetch of the committed records, whatever the transaction did to
        // them since; their current (pending) values decide below.
        var stored = CoreStoreFetchRequest(entityType: O.self, configurations: [store.configuration])
        stored.predicate = .comparison(Comparison([O.uniqueIDKeyPath], .in, .list(ids.map { $0.cs_toStoredValue() })))
        stored.tweaks.includesPendingChanges = false
        let objects = try context.fetchObjects(stored, as: O.self)
        try context.lock.locked { () throws(CoreStoreError) in
            for object in objects { if let state = object.cs_state { consider(state) } }
            // Objects inserted, or changed into one of the IDs, earlier in this transaction.
            for state in context.inserted where state.store === store {
                consider(state)
            }
            for state in context.changed.objects.sorted(by: { $0.recordID.key < $1.recordID.key }) where state.store === store {
                consider(state)
            }
        }
        return found
    }
}

/// Logs once per attribute that a unique ID is not indexed, so every import scans.
enum UnindexedUniqueIDWarning {
    private static let logged = LoggedKeys()

    static func once(entity: String, key: String) {
        guard logged.insert("\(entity).\(key)") else { return }
        Log.log(.warning, "'\(entity).\(key)' is the unique ID of imports but is not indexed, so each import reads every '\(entity)'. Declare it in the entity's uniqueConstraints (or indexes).")
    }
}

/// A thread-safe set of strings.
private final class LoggedKeys: @unchecked Sendable {
    private let lock = NSLockWrapper()
    private var keys: Set<String> = []

    /// Whether `key` was newly inserted.
    func insert(_ key: String) -> Bool {
        lock.run { keys.insert(key).inserted }
    }
}
