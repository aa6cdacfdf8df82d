import CoreStoreStorage

/// Following the commits other connections make to the stack's shared stores.
///
/// A store that adopts `SharedAccessStorage` (`SQLiteStore`, `PostgresStore`) may be added to
/// several stacks — in this process or in others. Each stack compares the store's stored commit
/// sequence with the last one it made or saw: after each of its own commits (a gap means
/// someone committed in between, and the commit catches up at once), right after another stack of this process committed to the
/// same store, when the store hears of a commit (`onForeignCommit`), and on a timer (every
/// 200 ms when the store's change signature moved, every 2 s regardless). When the sequence
/// moved, the stack catches up: from the store's commit summaries when it keeps them (only the
/// changed records are read, and monitors hear each commit), otherwise by reading its objects
/// again while its monitors re-examine what they show (as in ``refreshAndMergeAllObjects()``).
/// Either way their observers hear about the other connections' commits like about their own.
extension DataStack {
    /// Starts following a shared store just added.
    func startWatching(_ store: AttachedStore) throws(CoreStoreError) {
        guard let shared = store.sharedStorage else { return }
        do {
            store.lastSequence = try shared.storedCommitSequence()
        } catch {
            throw CoreStoreError.wrap(error)
        }
        let identity = shared.sharedIdentity
        store.sharedIdentity = identity
        SharedStoreRegistry.register(self, for: identity)
        sharedStoreWatcher.watch(store)
    }

    /// Tells the other stacks of this process that share the stores of `commits` to check now.
    func notifyStacksSharing(_ commits: [StoreCommit]) {
        for commit in commits {
            guard let identity = commit.store.sharedIdentity else { continue }
            for watcher in SharedStoreRegistry.otherWatchers(of: self, sharing: identity) {
                watcher.requestCheck()
            }
        }
    }

    /// Compares every shared store's stored sequence with the last one the stack knows, and
    /// catches up with the commits other connections made (under the commit lock, so no commit
    /// of this stack interleaves). Returns the deliveries that will tell observers (none when
    /// nothing moved).
    ///
    /// When every store that moved keeps the summaries of the commits since (see
    /// `SharedAccessStorage.committedChanges(after:)`), the stack reads only the records they
    /// name and hands the commits to its monitors one by one, as it does its own. Otherwise it
    /// reads all its objects again and its monitors re-examine their whole lists.
    @discardableResult
    func refreshFromSharedStores() throws(CoreStoreError) -> [ObservationDelivery] {
        try withCommitsPaused(catchUpWithSharedStores)
    }

    /// What ``refreshFromSharedStores()`` does; call with the commit lock held (a commit that
    /// found another connection's commit before its own catches up at once, so that a stack
    /// committing without pause never keeps its watcher waiting for the lock).
    func catchUpWithSharedStores() throws(CoreStoreError) -> [ObservationDelivery] {
        var moved: [(store: AttachedStore, sequence: UInt64)] = []
        var summaries: [(store: AttachedStore, summaries: [CommitSummary])]? = []
        for store in stores {
            guard let shared = store.sharedStorage else { continue }
            do {
                let sequence = try shared.storedCommitSequence()
                guard sequence != store.lastSequence else { continue }
                moved.append((store, sequence))
                if summaries != nil, let last = store.lastSequence,
                   let logged = try shared.committedChanges(after: last),
                   Self.summaries(logged, continueFrom: last, through: sequence, skipping: store.ownCommitsAhead) {
                    summaries?.append((store, logged))
                } else {
                    summaries = nil
                }
            } catch {
                throw CoreStoreError.wrap(error)
            }
        }
        guard !moved.isEmpty else { return [] }
        guard let summaries else {
            // The sequences were read first: a commit landing during the refresh is
            // noticed by the next check. The objects and the monitors' lists are read as of
            // one moment of each store that moved, so that observers never hear of half of a
            // commit (its insert now, its update on the next check).
            let deliveries = try gateway.readingOneSnapshot(of: moved.map(\.store), refreshObjectsAndMonitors)
            for (store, sequence) in moved { store.caughtUp(with: sequence) }
            return deliveries
        }
        var commits: [StoreCommit] = []
        for (store, logged) in summaries {
            commits += try mainContext.catchUpCommits(of: store, from: logged, skipping: store.ownCommitsAhead)
            if let last = logged.last?.sequence { store.caughtUp(with: last) }
        }
        return mergeForeignCommits(commits)
    }

    /// Whether `summaries` are the commits `last + 1`, `last + 2`, … up to `sequence` at least,
    /// each listing its changes (or one of the stack's own, in `own`).
    private static func summaries(_ summaries: [CommitSummary], continueFrom last: UInt64, through sequence: UInt64, skipping own: Set<UInt64>) -> Bool {
        guard let reached = summaries.last?.sequence, reached >= sequence else { return false }
        for (offset, summary) in summaries.enumerated() {
            guard summary.sequence == last + UInt64(offset) + 1 else { return false }
            if summary.changes == nil && !own.contains(summary.sequence) { return false }
        }
        return true
    }
}

extension AttachedStore {
    /// The stack has applied every commit up to `sequence`.
    func caughtUp(with sequence: UInt64) {
        lastSequence = sequence
        if !ownCommitsAhead.isEmpty { ownCommitsAhead = ownCommitsAhead.filter { $0 > sequence } }
    }
}
