import CoreStoreStorage

/// Records a transaction deleted without ever making objects for them: what `deleteAll` marks
/// when nothing else needs an object (see ``ObjectContext/deleteMatching(_:)``).
///
/// Each entry is the committed record as the transaction read it, which the commit hands to the
/// store as the deleted record's base. An identifier is never both here and in the context's
/// identity map: records are only added when no object is registered for them, and no object
/// is made for a record held here (``ObjectContext/object(for:in:readSince:)`` answers `nil`).
struct RecordDeletes {
    /// The deleted records of one store, by record key.
    struct StoreRecords {
        let store: AttachedStore
        var records: [Int64: Record]
    }

    /// One entry per store that has deletes (a handful at most: searched in order).
    private(set) var stores: [StoreRecords] = []

    /// Whether no record is deleted here (asked once per fetched record: a plain loop, which
    /// costs a few instructions where `allSatisfy` with a key path cost over a hundred).
    var isEmpty: Bool {
        for group in stores where !group.records.isEmpty { return false }
        return true
    }

    /// Whether the record `id` is deleted here.
    func contains(_ id: ObjectID) -> Bool {
        contains(storeID: id.storeID, key: id.recordID.key)
    }

    /// Whether record `key` of store `storeID` is deleted here.
    func contains(storeID: UInt64, key: Int64) -> Bool {
        guard let index = stores.firstIndex(where: { $0.store.id == storeID }) else { return false }
        return stores[index].records[key] != nil
    }

    /// Adds a committed record of `store`; `false` if it was already deleted here.
    mutating func insert(_ record: Record, in store: AttachedStore) -> Bool {
        if let index = stores.firstIndex(where: { $0.store === store }) {
            return stores[index].records.updateValue(record, forKey: record.id.key) == nil
        }
        stores.append(StoreRecords(store: store, records: [record.id.key: record]))
        return true
    }

    /// Makes room for `count` more records of `store`.
    mutating func reserveCapacity(_ count: Int, in store: AttachedStore) {
        if let index = stores.firstIndex(where: { $0.store === store }) {
            stores[index].records.reserveCapacity(stores[index].records.count + count)
        } else {
            stores.append(StoreRecords(store: store, records: Dictionary(minimumCapacity: count)))
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
    /// be able to undo it object by object); otherwise its object is made and deleted.
    func deleteMatching(_ spec: CoreStoreFetchRequest) throws(CoreStoreError) -> Int {
        let matches = try fetchRecords(spec)
        return lock.withLock {
            var count = 0
            for (store, record) in matches {
                let id = ObjectID(storeID: store.id, recordID: record.id)
                if let object = registered(id) {
                    if markDeleted(object) { count += 1 }
                } else if journals.isEmpty, let entity = entity(named: record.id.entity), entity.description.relationships.isEmpty {
                    if recordDeletes.insert(record, in: store) { count += 1 }
                } else if let object = makeObject(for: record, in: store), markDeleted(object) {
                    count += 1
                }
            }
            return count
        }
    }

    /// Turns the records deleted without objects into deleted objects (call with the lock
    /// held), for the API that hands out the deleted objects themselves.
    func makeObjectsForRecordDeletes() {
        guard !recordDeletes.isEmpty else { return }
        for group in recordDeletes.stores {
            for record in group.records.values {
                guard let entity = entity(named: record.id.entity) else { continue }
                let id = ObjectID(storeID: group.store.id, recordID: record.id)
                let object = makeInstance(of: entity, in: group.store, record: record, isCommitted: true, isDeleted: true)
                register(object, as: id)
                deleted[id] = object
            }
        }
        recordDeletes.removeAll()
    }
}
