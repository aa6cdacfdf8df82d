/// The permanent identifiers one commit gave to the temporary identifiers of its inserts, in the
/// form the commit makes them: the temporary keys in the order they were numbered — the n-th
/// received key `firstKey + n` — and the entity of each run of them.
///
/// ``dictionary`` is the map ``CommitInfo/permanentIDs`` hands out, built only when something
/// asks for it; ``keyMap()`` is the lookup that rewriting references to new records needs, built
/// only for a change set that has such references. A commit of new records that reference
/// nothing new hashes nothing (a dictionary of 100,000 identifiers cost a large insert several
/// percent of its time, in hashing and in cache misses).
struct PermanentIDAssignment: Sendable {
    /// A run of consecutively numbered records of one entity.
    private struct Run: Sendable {
        /// The records' entity.
        let entity: String
        /// Where the run starts in ``temporaryKeys``.
        let start: Int
    }

    /// The key the first numbered record received.
    let firstKey: Int64
    /// The temporary keys, in numbering order.
    private var temporaryKeys: [Int64] = []
    /// The runs, in order; the first starts at 0.
    private var runs: [Run] = []

    /// An assignment that numbers from `firstKey`, with nothing numbered yet.
    init(firstKey: Int64, expectedCount: Int = 0) {
        self.firstKey = firstKey
        temporaryKeys.reserveCapacity(expectedCount)
    }

    /// The number of identifiers numbered.
    var count: Int { temporaryKeys.count }

    /// Numbers `id`, a temporary identifier, and returns the permanent key it receives.
    mutating func number(_ id: RecordID) -> Int64 {
        // The entity names of one entity's records share their storage: comparing them is a
        // comparison of two words.
        if runs.last?.entity != id.entity { runs.append(Run(entity: id.entity, start: temporaryKeys.count)) }
        let key = firstKey + Int64(temporaryKeys.count)
        temporaryKeys.append(id.key)
        return key
    }

    /// Calls `body` with each temporary identifier and the permanent one it received, in
    /// numbering order.
    private func forEachPair(_ body: (RecordID, RecordID) -> Void) {
        for (r, run) in runs.enumerated() {
            let end = r + 1 < runs.count ? runs[r + 1].start : temporaryKeys.count
            for i in run.start..<end {
                body(RecordID(entity: run.entity, key: temporaryKeys[i]), RecordID(entity: run.entity, key: firstKey + Int64(i)))
            }
        }
    }

    /// The permanent identifier of each temporary key.
    func keyMap() -> [Int64: RecordID] {
        var map: [Int64: RecordID] = [:]
        map.makeRoom(forAdditional: count)
        forEachPair { temporary, permanent in map[temporary.key] = permanent }
        return map
    }

    /// The permanent identifier of each temporary identifier.
    var dictionary: [RecordID: RecordID] {
        var map: [RecordID: RecordID] = [:]
        map.makeRoom(forAdditional: count)
        forEachPair { temporary, permanent in map[temporary] = permanent }
        return map
    }
}
