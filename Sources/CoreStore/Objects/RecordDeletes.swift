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
    /// The deleted records of one store.
    struct StoreRecords {
        let store: AttachedStore
        /// The identifiers, in the order they were deleted (a fetch's order: mostly by key).
        private(set) var ids: [RecordID] = []
        /// Their keys, to look them up.
        private(set) var keys = RecordKeySet()

        init(store: AttachedStore) {
            self.store = store
        }

        var isEmpty: Bool { ids.isEmpty }

        func contains(_ key: Int64) -> Bool { keys.contains(key) }

        mutating func insert(_ id: RecordID) -> Bool {
            guard keys.insert(id.key) else { return false }
            ids.append(id)
            return true
        }

        /// Removes the records of `keys` held here; returns their keys.
        mutating func remove(_ keys: [Int64]) -> RecordKeySet {
            var removed = RecordKeySet(minimumCapacity: keys.count)
            for key in keys where self.keys.remove(key) { removed.insert(key) }
            if !removed.isEmpty { ids.removeAll { removed.contains($0.key) } }
            return removed
        }

        mutating func reserveCapacity(_ count: Int) {
            keys.reserveCapacity(keys.count + count)
            ids.reserveCapacity(ids.count + count)
        }

        /// The identifiers in key order (the order a change set lists deletes in): sorted only
        /// when the deletes did not come in that order.
        var sortedIDs: [RecordID] {
            for i in ids.indices.dropFirst() where ids[i - 1].key > ids[i].key {
                return ids.sorted { $0.key < $1.key }
            }
            return ids
        }
    }

    /// One entry per store that has deletes (a handful at most: searched in order).
    private(set) var stores: [StoreRecords] = []

    /// Whether no record is deleted here (asked once per fetched record: a plain loop, which
    /// costs a few instructions where `allSatisfy` with a key path cost over a hundred).
    var isEmpty: Bool {
        for group in stores where !group.isEmpty { return false }
        return true
    }

    /// Whether the record `id` is deleted here.
    func contains(_ id: ObjectID) -> Bool {
        contains(storeID: id.storeID, key: id.recordID.key)
    }

    /// Whether record `key` of store `storeID` is deleted here.
    func contains(storeID: UInt64, key: Int64) -> Bool {
        guard let index = stores.firstIndex(where: { $0.store.id == storeID }) else { return false }
        return stores[index].contains(key)
    }

    /// Adds a committed record of `store`; `false` if it was already deleted here.
    mutating func insert(_ id: RecordID, in store: AttachedStore) -> Bool {
        if let index = stores.firstIndex(where: { $0.store === store }) {
            return stores[index].insert(id)
        }
        var group = StoreRecords(store: store)
        _ = group.insert(id)
        stores.append(group)
        return true
    }

    /// Removes the records of `keys` held for `store`; returns their keys.
    mutating func remove(_ keys: [Int64], in store: AttachedStore) -> RecordKeySet {
        guard let index = stores.firstIndex(where: { $0.store === store }) else { return RecordKeySet() }
        return stores[index].remove(keys)
    }

    /// Makes room for `count` more records of `store`.
    mutating func reserveCapacity(_ count: Int, in store: AttachedStore) {
        if let index = stores.firstIndex(where: { $0.store === store }) {
            stores[index].reserveCapacity(count)
        } else {
            var group = StoreRecords(store: store)
            group.reserveCapacity(count)
            stores.append(group)
        }
    }

    mutating func removeAll() {
        stores.removeAll()
    }

    /// Forgets the records deleted in these stores.
    mutating func removeAll(of saved: [AttachedStore]) {
        stores.removeAll { group in saved.contains { $0 === group.store } }
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
            // The set matters, not its order: the deletes are kept sorted by key anyway.
            let matches = try fetchIdentifiers(fetch, spec, inAnyOrder: true)
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
        for group in groups where !group.isEmpty {
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
                let taken = recordDeletes.remove(records.map(\.id.key), in: store)
                for record in records where taken.contains(record.id.key) {
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
