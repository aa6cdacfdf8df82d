import Foundation
import CoreStoreStorage

/// The counters, record counts and attribute totals a ``KeyValueStorage``'s last successful
/// write stored, with their generation, so that the next write need not read them back from
/// the engine.
final class LatestCounters: @unchecked Sendable {
    /// What a write stored: its commit counters, the record count of each hierarchy and the
    /// attribute totals.
    typealias Stored = (counters: CommitCounters, records: RecordCounts, totals: AttributeTotals)

    private let lock = NSLock()
    /// Guarded by ``lock``.
    private var latest: (generation: UInt64, stored: Stored)?

    /// What was remembered for `generation`, `nil` when there is nothing.
    func value(for generation: UInt64) -> Stored? {
        lock.withLock {
            guard let latest, latest.generation == generation else { return nil }
            return latest.stored
        }
    }

    /// Remembers what a write of `generation` stored.
    func remember(_ stored: Stored, for generation: UInt64) {
        lock.withLock { latest = (generation, stored) }
    }

    /// Forgets what was remembered (the engine was closed, erased or migrated).
    func forget() {
        lock.withLock { latest = nil }
    }
}
