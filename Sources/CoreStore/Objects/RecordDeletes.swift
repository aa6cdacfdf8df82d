import CoreStoreStorage

/// Records a transaction deleted without ever making objects for them: what `deleteAll` marks
/// when nothing else needs an object (see ``ObjectContext/deleteMatching(_:)``).
///
/// Only identifiers are kept: the read that found them asked the store for identifiers alone
/// where it could, and the commit lets the store read what it needs of the records. An
/// identifier is never both here and in the context's identity map: records are only added when
/// no object is registered for them, and no object is made for a record held here
/// (``ObjectContext/object(for:in:readSince:)`` answers `nil`).
struct RecordDeletes {
    /// The deleted records of one store: the entity of each, by record key.
    struct StoreRecords {
        let store: AttachedStore
        var entities: [Int64: String]

        /// The identifiers, in key order (the order a change set lists deletes in).
        var sortedIDs: [RecordID] {
            entities.map { RecordID(entity: $0.value, key: $0.key) }.sorted { $0.key < $1.key }
        }
    }

    /// One entry per store that has deletes (a handful at most: searched in order).
    private(set) var stores: [StoreRecords] = []

    /// Whether no record is deleted here (asked once per fetched record: a plain loop, which
    /// costs a few instructions where `allSatisfy` with a key path cost over a hundred).
    var isEmpty: Bool {
        for group in stores where !group.entities.isEmpty { return false }
        return true
    }

    /// Whether the record `id` is deleted here.
    func contains(_ id: ObjectID) -> Bool {
        contains(storeID: id.storeID, key: id.recordID.key)
    }

    /// Whether record `key` of store `storeID` is deleted here.
    func contains(storeID: UInt64, key: Int64) -> Bool {
        guard let index = stores.firstIndex(where: { $0.store.id == storeID }) else { return false }
        return stores[index].entities[key] != nil
    }

    /// Adds a committed record of `store`; `false` if it was already deleted here.
    mutating func insert(_ id: RecordID, in store: AttachedStore) -> Bool {
        if let index = stores.firstIndex(where: { $0.store === store }) {
            return stores[index].entities.updateValue(id.entity, forKey: id.key) == nil
        }
        stores.append(StoreRecords(store: store, entities: [id.key: id.entity]))
        return true
    }

    /// Removes a record of `store`; `false` if it was not deleted here.
    mutating func remove(_ id: RecordID, in store: AttachedStore) -> Bool {
        guard let index = stores.firstIndex(where: { $0.store === store }) else { return false }
        return stores[index].entities.removeValue(forKey: id.key) != nil
    }

    /// Makes room for `count` more records of `store`.
    mutating func reserveCapacity(_ count: Int, in store: AttachedStore) {
        if let index = stores.firstIndex(where: { $0.store === store }) {
            stores[index].entities.makeRoom(forAdditional: count)
        } else {
            stores.append(StoreRecords(store: store, entities: Dictionary(minimumCapacity: count)))
        }
    }

    mutating func removeAll() {
        stores.removeAll()
    }
}

extension ObjectContext {
    /// Deletes every object matching a fetch (a transaction's `deleteAll`); returns how many
    /// were newly deleted.
    ///
    /// A matching record that has an object here deletes that object. One that has none is
    /// deleted as a record, without making an object only to drop it, when its entity has no
    /// relationships (no delete rule can need its object) and no journal is open (nothing has to
    /// be able to undo it object by object); otherwise its object is made and deleted. When
    /// every entity the fetch can return qualifies, only the identifiers are read.
    func deleteMatching(_ spec: CoreStoreFetchRequest) throws(CoreStoreError) -> Int {
        guard let fetch = try resolve(spec) else { return 0 }
        let selected = spec.tweaks.includesSubentities ? fetch.schema.entityAndDescendants(fetch.entity.name) : [fetch.entity.name]
        let withoutRelationships = selected.allSatisfy { fetch.schema.entity(named: $0)?.relationships.isEmpty ?? false }
        if withoutRelationships, lock.withLock({ journals.isEmpty }) {
            let matches = try fetchIdentifiers(fetch, spec)
            return lock.withLock {
                var count = 0
                if let store = matches.first?.0 { recordDeletes.reserveCapacity(matches.count, in: store) }
                for (store, recordID) in matches {
                    if let object = registered(ObjectID(storeID: store.id, recordID: recordID)) {
                        if markDeleted(object) { count += 1 }
                    } else if recordDeletes.insert(recordID, in: store) {
                        count += 1
                    }
                }
                return count
            }
        }
        let matches = try fetchRecords(spec)
        return lock.withLock {
            var count = 0
            for (store, record) in matches {
                let id = ObjectID(storeID: store.id, recordID: record.id)
                if let object = registered(id) {
                    if markDeleted(object) { count += 1 }
                } else if journals.isEmpty, let entity = entity(named: record.id.entity), entity.description.relationships.isEmpty {
                    if recordDeletes.insert(record.id, in: store) { count += 1 }
                } else if let object = makeObject(for: record, in: store), markDeleted(object) {
                    count += 1
                }
            }
            return count
        }
    }

    /// Turns the records deleted without objects into deleted objects, for the API that hands
    /// out the deleted objects themselves. Reads the records outside the lock. A record that
    /// can no longer be read (another connection deleted it, or the read failed, which is
    /// logged) stays deleted without an object: the commit then reports what it finds.
    func makeObjectsForRecordDeletes() {
        let groups = lock.withLock { recordDeletes.stores }
        var read: [(AttachedStore, [Record])] = []
        for group in groups where !group.entities.isEmpty {
            let ids = group.sortedIDs
            do {
                read.append((group.store, try gateway.read(group.store) { try $0.records(ids) }.compactMap { $0 }))
            } catch {
                _ = Log.error(error, "The records deleted by deleteAll could not be read to make their objects; they stay deleted.")
            }
        }
        guard !read.isEmpty else { return }
        lock.withLock {
            for (store, records) in read {
                for record in records where recordDeletes.remove(record.id, in: store) {
                    guard let entity = entity(named: record.id.entity) else { continue }
                    let id = ObjectID(storeID: store.id, recordID: record.id)
                    let object = makeInstance(of: entity, in: store, record: record, isCommitted: true, isDeleted: true)
                    register(object, as: id)
                    deleted[id] = object
                }
            }
        }
    }
}
