import CoreStore
import Foundation

/// What one process's list monitor reports in `corestore torture shared`: every entry inserted
/// (once each, or it is counted as a duplicate), deletions (there must be none), and for the
/// entries other processes committed, how long after their commit began the callback came.
final class SharedTortureRecorder: ListObjectObserver, @unchecked Sendable {
    typealias ListEntityType = SharedTortureModel.Entry

    private let lock = NSLock()
    private let ownProcess: Int
    private var seen = Set<Int64>()
    private var duplicateCount = 0
    private var deletionCount = 0
    private var remoteLatencies: [Double] = []

    init(ownProcess: Int) {
        self.ownProcess = ownProcess
    }

    /// How many distinct entries the callbacks inserted, how many twice, how many deleted.
    var counts: (inserted: Int, duplicates: Int, deletions: Int) {
        lock.withLock { (seen.count, duplicateCount, deletionCount) }
    }

    /// Seconds from the start of another process's commit to this process's callback.
    var latencies: [Double] {
        lock.withLock { remoteLatencies }
    }

    func listMonitor(_ monitor: ListMonitor<ListEntityType>, didInsertObject object: ListEntityType, toIndexPath indexPath: IndexPath) {
        let now = Date().timeIntervalSince1970
        let (process, index, stamp) = (object.process, object.index, object.stamp)
        lock.withLock {
            if !seen.insert(Int64(process) << 32 | Int64(index)).inserted { duplicateCount += 1 }
            if process != ownProcess { remoteLatencies.append(now - stamp) }
        }
    }

    func listMonitor(_ monitor: ListMonitor<ListEntityType>, didDeleteObject object: ListEntityType, fromIndexPath indexPath: IndexPath) {
        lock.withLock { deletionCount += 1 }
    }
}
