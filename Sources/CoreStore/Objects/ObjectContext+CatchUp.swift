import CoreStoreStorage

extension ObjectContext {
    /// The commits `summaries` made to `store` (another connection's, read from the store's
    /// commit summaries), as this stack's own commits would describe them, in commit order. The
    /// records they inserted or updated are read from the store in one read, so each carries
    /// its latest values. Summaries whose sequence is in `skipping` (the stack's own commits,
    /// already applied) and those that changed nothing are left out.
    ///
    /// Every summary must list its changes. A record gone by the time of the read (deleted by
    /// a later commit) is left out of the commits that inserted or updated it; the commit that
    /// deleted it reports it. Observers see the values of a deleted record as this context last
    /// held them, or as a new record of the entity when it never held them.
    func catchUpCommits(of store: AttachedStore, from summaries: [CommitSummary], skipping: Set<UInt64>) throws(CoreStoreError) -> [StoreCommit] {
        let listed = summaries.compactMap { summary -> (UInt64, CommitSummary.Changes)? in
            guard !skipping.contains(summary.sequence), let changes = summary.changes, changes.recordCount > 0 else { return nil }
            return (summary.sequence, changes)
        }
        guard !listed.isEmpty else { return [] }

        // One read for every record inserted or updated.
        var wanted = Set<RecordID>()
        for (_, changes) in listed {
            wanted.formUnion(changes.inserted)
            wanted.formUnion(changes.updated)
        }
        var stored: [Int64: Record] = [:]
        if !wanted.isEmpty {
            let ids = wanted.sorted { $0.key < $1.key }
            let records = try gateway.read(store) { try $0.records(ids) }
            for record in records.compactMap({ $0 }) { stored[record.id.key] = record }
        }

        var commits: [StoreCommit] = []
        for (sequence, changes) in listed {
            let commit = StoreCommit(store: store, sequence: sequence, inserted: [], updated: [], updatedKeys: [], deleted: [], deletedRecords: [])
            commit.inserted = changes.inserted.compactMap { stored[$0.key] }
            for id in changes.updated {
                guard let record = stored[id.key] else { continue }
                commit.updated.append(record)
                commit.updatedKeys.append(changes.changedKeys[id] ?? [])
            }
            if !changes.deleted.isEmpty {
                lock.withLock {
                    for id in changes.deleted {
                        let last = registered(ObjectID(storeID: store.id, recordID: id))?.committed
                            ?? runtime.entitiesByName[id.entity]?.initialRecord(id: id)
                        guard let last else { continue }
                        commit.deleted.append(id)
                        commit.deletedRecords.append(last)
                    }
                }
            }
            if !commit.inserted.isEmpty || !commit.updated.isEmpty || !commit.deleted.isEmpty { commits.append(commit) }
        }
        return commits
    }
}
