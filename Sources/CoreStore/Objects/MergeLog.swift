import CoreStoreStorage

/// What the read-only context merged while reads of storage were under way, so that a read
/// registered after a merge takes the merged version of each record it brings back.
///
/// A read notes the merge generation it began at; storage then holds at least what was merged
/// by then (a commit is written before it is merged). For every record a merge changed while
/// reads were under way the log keeps the newest version (`nil` once deleted) and the
/// generation of that merge: a read that began earlier takes it instead of what it read, in one
/// lookup per row. With no read under way nothing is kept.
struct MergeLog {
    private struct Key: Hashable {
        let storeID: UInt64
        let recordKey: Int64
    }

    /// The number of merges so far.
    private var generation: UInt64 = 0
    /// The reads under way, by the generation they began at.
    private var reads: [UInt64: Int] = [:]
    /// The newest merged version of each record changed while reads were under way.
    private var latest: [Key: (generation: UInt64, record: Record?)] = [:]
    /// The size of ``latest`` at which versions no read under way can need are next dropped.
    private var pruneThreshold = 4096

    mutating func beginRead() -> UInt64 {
        reads[generation, default: 0] += 1
        readsUnderWay += 1
        return generation
    }

    /// The number of reads begun and not yet ended.
    private(set) var readsUnderWay = 0

    mutating func endRead(_ began: UInt64) {
        guard let count = reads[began] else { return }
        reads[began] = count > 1 ? count - 1 : nil
        readsUnderWay -= 1
        guard !latest.isEmpty else { return }
        guard let oldest = reads.keys.min() else {
            latest.removeAll()
            pruneThreshold = 4096
            return
        }
        if latest.count >= pruneThreshold {
            latest = latest.filter { $0.value.generation > oldest }
            pruneThreshold = max(4096, latest.count * 2)
        }
    }

    mutating func record(_ change: StoreCommit) {
        generation += 1
        guard !reads.isEmpty else { return }
        for record in change.updated {
            latest[Key(storeID: change.store.id, recordKey: record.id.key)] = (generation, record)
        }
        for id in change.deleted {
            latest[Key(storeID: change.store.id, recordKey: id.key)] = (generation, nil)
        }
    }

    /// The newest merged version of a record since generation `began`: `.some(nil)` if a merge
    /// deleted it, `nil` if no merge since touched it.
    func version(of id: RecordID, in storeID: UInt64, since began: UInt64) -> Record?? {
        guard began < generation, !latest.isEmpty else { return nil }
        guard let entry = latest[Key(storeID: storeID, recordKey: id.key)], entry.generation > began else { return nil }
        return .some(entry.record)
    }
}
