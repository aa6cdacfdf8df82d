import CoreStoreStorage

/// Following the commits other connections make to the stack's shared stores.
///
/// A store that adopts `SharedAccessStorage` (`SQLiteStore`) may be added to several stacks —
/// in this process or in others. Each stack compares the store's stored commit sequence with
/// the last one it made or saw: after each of its own commits (a gap means someone committed in
/// between), right after another stack of this process committed to the same file, and on a
/// timer for other processes (every 200 ms when the store's files changed, every 2 s
/// regardless). When the sequence moved, the stack reads its
/// objects again and its monitors re-examine what they show (as in
/// ``refreshAndMergeAllObjects()``), so their observers hear about the other connections'
/// commits like about their own.
extension DataStack {
    /// Starts following a shared store just added.
    func startWatching(_ store: AttachedStore) throws(CoreStoreError) {
        guard let shared = store.storage as? any SharedAccessStorage else { return }
        do {
            store.lastSequence = try shared.storedCommitSequence()
        } catch {
            throw CoreStoreError.wrap(error)
        }
        SharedStoreRegistry.register(self, for: shared.sharedIdentity)
        sharedStoreWatcher.watch(store)
    }

    /// Tells the other stacks of this process that share the stores of `commits` to check now.
    func notifyStacksSharing(_ commits: [StoreCommit]) {
        for commit in commits {
            guard let shared = commit.store.storage as? any SharedAccessStorage else { continue }
            for other in SharedStoreRegistry.others(of: self, sharing: shared.sharedIdentity) {
                other.sharedStoreWatcher.requestCheck()
            }
        }
    }

    /// Compares every shared store's stored sequence with the last one the stack knows; when
    /// one moved, reads the stack's objects again and lets its monitors re-examine their lists
    /// (under the commit lock, so no commit of this stack interleaves). Returns the deliveries
    /// that will tell observers (none when nothing moved).
    @discardableResult
    func refreshFromSharedStores() throws(CoreStoreError) -> [ObservationDelivery] {
        try withCommitsPaused { () throws(CoreStoreError) -> [ObservationDelivery] in
            var moved: [(AttachedStore, UInt64)] = []
            for store in stores {
                guard let shared = store.storage as? any SharedAccessStorage else { continue }
                let sequence: UInt64
                do {
                    sequence = try shared.storedCommitSequence()
                } catch {
                    throw CoreStoreError.wrap(error)
                }
                if sequence != store.lastSequence { moved.append((store, sequence)) }
            }
            guard !moved.isEmpty else { return [] }
            // The sequences were read first: a commit landing during the refresh is noticed
            // by the next check.
            let deliveries = try refreshObjectsAndMonitors()
            for (store, sequence) in moved { store.lastSequence = sequence }
            return deliveries
        }
    }
}
