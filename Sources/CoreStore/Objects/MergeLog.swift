import CoreStoreStorage

/// What the read-only context merged while reads of storage were under way, so that a read
/// registered after a merge takes the merged version of each record it brings back.
///
/// A read notes the merge generation it began at; storage then holds at least what was merged
/// by then (a commit is written before it is merged). Records a later merge changed are taken
/// from the log instead; records it deleted are dropped. With no read under way nothing is
/// kept, and entries go as soon as no read that began before them remains.
struct MergeLog {
    private struct Entry {
        let generation: UInt64
        let storeID: UInt64
        let updated: [Int64: Record]
        let deleted: Set<Int64>
    }

    /// The number of merges so far.
    private var generation: UInt64 = 0
    /// The reads under way, by the generation they began at.
    private var reads: [UInt64: Int] = [:]
    private var entries: [Entry] = []

    mutating func beginRead() -> UInt64 {
        reads[generation, default: 0] += 1
        return generation
    }

    mutating func endRead(_ began: UInt64) {
        guard let count = reads[began] else { return }
        reads[began] = count > 1 ? count - 1 : nil
        guard !entries.isEmpty else { return }
        if let oldest = reads.keys.min() {
            entries.removeAll { $0.generation <= oldest }
        } else {
            entries.removeAll()
        }
    }

    mutating func record(_ change: StoreCommit) {
        generation += 1
        guard !reads.isEmpty, !(change.updated.isEmpty && change.deleted.isEmpty) else { return }
        var updated: [Int64: Record] = [:]
        updated.reserveCapacity(change.updated.count)
        for record in change.updated { updated[record.id.key] = record }
        entries.append(Entry(generation: generation, storeID: change.store.id, updated: updated, deleted: Set(change.deleted.map(\.key))))
    }

    /// The newest merged version of a record since generation `began`: `.some(nil)` if a merge
    /// deleted it, `nil` if no merge since touched it.
    func version(of id: RecordID, in storeID: UInt64, since began: UInt64) -> Record?? {
        guard began < generation, !entries.isEmpty else { return nil }
        for entry in entries.reversed() where entry.generation > began && entry.storeID == storeID {
            if entry.deleted.contains(id.key) { return .some(nil) }
            if let record = entry.updated[id.key] { return .some(record) }
        }
        return nil
    }
}
