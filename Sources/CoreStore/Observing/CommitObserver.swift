/// Something that follows a `DataStack`'s commits: list and object monitors and publishers.
protocol CommitObserver: AnyObject {
    /// Called inside the stack's commit lock, right after the read-only context merged
    /// `commits` (one per store the transaction wrote to), so the stores show exactly this
    /// commit. Works out what it means for the observer, schedules the notifications and
    /// returns the delivery that will send them (`nil`: nothing to tell).
    func stackDidCommit(_ commits: [StoreCommit]) -> ObservationDelivery?

    /// Called inside the stack's commit lock after its objects were read from storage again
    /// (``DataStack/refreshAndMergeAllObjects()``): `commits` holds what changed among the
    /// objects it held, but storage may have changed beyond them (another writer of the store).
    /// By default handled as a commit.
    func stackDidRefresh(_ commits: [StoreCommit]) -> ObservationDelivery?
}

extension CommitObserver {
    func stackDidRefresh(_ commits: [StoreCommit]) -> ObservationDelivery? {
        commits.isEmpty ? nil : stackDidCommit(commits)
    }
}

/// A registry entry that does not keep its observer alive.
struct WeakCommitObserver {
    weak var observer: (any CommitObserver)?

    init(_ observer: any CommitObserver) {
        self.observer = observer
    }
}
