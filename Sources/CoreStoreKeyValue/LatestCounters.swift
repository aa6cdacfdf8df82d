import Foundation
import CoreStoreStorage

/// The counters a ``KeyValueStorage``'s last successful write stored, with their generation,
/// so that the next write need not read them back from the engine.
final class LatestCounters: @unchecked Sendable {
    private let lock = NSLock()
    /// Guarded by ``lock``.
    private var latest: (generation: UInt64, counters: CommitCounters)?

    /// The counters remembered for `generation`, `nil` when there are none.
    func value(for generation: UInt64) -> CommitCounters? {
        lock.withLock {
            guard let latest, latest.generation == generation else { return nil }
            return latest.counters
        }
    }

    /// Remembers what a write of `generation` stored.
    func remember(_ counters: CommitCounters, for generation: UInt64) {
        lock.withLock { latest = (generation, counters) }
    }

    /// Forgets the counters: the next write reads them from the engine.
    func forget() {
        lock.withLock { latest = nil }
    }
}
