import CoreStoreStorage

/// Where a full, limited ranking's kept entries end, by their first sort value: a scan that
/// feeds the ranking skips a record whose first sort value ranks strictly after it — the
/// record the ranking would turn away — without visiting it.
///
/// A limited sort of an unindexed attribute (the best 100 scores of 100,000 records) keeps
/// almost no record once its ranking is full, and each record turned away by the scan costs
/// one comparison instead of the calls that hand it to the ranking. The ranking
/// (``RecordRanking``) keeps the cutoff current: it only ever moves towards the front, so a
/// record skipped is one the ranking would refuse at that moment.
final class RankingCutoff {
    // A scan and its ranking use a cutoff on one thread, one access at a time: the run-time
    // exclusivity check of each property access is switched off.
    /// The ordinal of the first sort key per entity index (`-1`: not known yet, or none).
    @exclusivity(unchecked) private var firstOrdinals: [Int]
    /// The kept entries' last first sort value when both the ranking is full and that value
    /// is an integer or a double other than NaN; ``StoredNumber/other``: nothing is skipped.
    @exclusivity(unchecked) private var boundary = StoredNumber.other
    /// Whether the first sort key ascends.
    private let ascends: Bool

    /// A cutoff that skips nothing yet, for records of `entityCount` entities (indexes in
    /// ``EntityNames``) ranked with the first sort key ascending when `ascends`.
    init(entityCount: Int, ascends: Bool) {
        firstOrdinals = Array(filledWith: -1, count: entityCount)
        self.ascends = ascends
    }

    /// Notes the ordinal of the first sort key of the entity at `entity`.
    func setFirstOrdinal(_ ordinal: Int, ofEntity entity: Int) {
        firstOrdinals[entity] = ordinal
    }

    /// Moves the cutoff to the ranking's current end.
    func setBoundary(_ boundary: StoredNumber) {
        self.boundary = boundary
    }

    /// For records of the entity at `entity`: the ordinal of the first sort key, the kept
    /// entries' last first sort value when it is a double (`nil` while nothing is skipped, or
    /// for another kind of value), and whether the key ascends; `nil` while the entity's first
    /// sort key is not known.
    func doubleBoundary(entity: Int) -> (ordinal: Int, bound: Double?, ascends: Bool)? {
        let ordinal = firstOrdinals[entity]
        guard ordinal >= 0 else { return nil }
        if case .double(let bound) = boundary { return (ordinal, bound, ascends) }
        return (ordinal, nil, ascends)
    }

    /// Whether the candidate, a record of the entity at `entity`, ranks after every kept entry
    /// by its first sort value alone. `false` whenever that cannot be told from two numbers
    /// of one kind: the ranking then decides.
    @inline(__always)
    func excludes(_ candidate: ScanCandidate, entity: Int) throws -> Bool {
        if case .other = boundary { return false }
        let ordinal = firstOrdinals[entity]
        guard ordinal >= 0 else { return false }
        return try candidate.rememberedNumber(ordinal).comesStrictlyAfter(boundary, ascending: ascends) ?? false
    }
}
