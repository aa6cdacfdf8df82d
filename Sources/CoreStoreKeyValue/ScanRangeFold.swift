/// A scan's range test and its ranking's cutoff, folded into one interval of doubles.
///
/// A top-N query over a range of the attribute it sorts by (the best 100 scores between 250
/// and 750) tests each record twice: its number against the range, which about half of the
/// records pass in no order a processor can predict, then against the ranking's cutoff, which
/// nearly all of those fail once the ranking is full. Both are bounds on the same number: for
/// a descending sort the cutoff excludes what lies below the kept entries' last value, so the
/// records that pass both are exactly those in `max(low, last)...high` (for an ascending sort
/// `low...min(high, last)`; a record equal to the last value goes on to the ranking, which
/// decides ties by the other sort keys). One interval test then decides every record, with one
/// branch that is almost never taken.
///
/// Each entity of the scan gets its fold from its prepared predicate (``ScanFilter``) once its
/// first record was tested, and every fold is made again after each record the scan visits,
/// since the ranking may then have moved the cutoff. A fold needs the predicate to be a range
/// of doubles (``FieldPredicate/doubleRange``) on the attribute the cutoff sorts by first; a
/// number of another kind (an integer, NaN, none) goes through the separate tests as before.
///
/// A class used by one scan on one thread, whose loop reads it for every record: its state
/// lies in buffers it owns, so that reading a fold checks no array's bounds or exclusivity.
final class ScanRangeFold {
    /// What is known of an entity's fold.
    private enum State: UInt8 {
        /// Its predicate has not been looked at yet.
        case unknown
        /// Its predicate is not a range of doubles: no fold.
        case none
        /// Its predicate's range is known (``ranges``); folded while ``active``.
        case range
    }

    /// The number of entities (indexes in ``EntityNames``).
    private let entityCount: Int
    /// Per entity: what is known.
    private let states: UnsafeMutablePointer<State>
    /// Per entity: the ordinal of the range's attribute and the range, `low...high`.
    private let ordinals: UnsafeMutablePointer<Int>
    private let ranges: UnsafeMutablePointer<(low: Double, high: Double)>
    /// Per entity: whether the fold is in use, and the doubles that pass both tests.
    private let active: UnsafeMutablePointer<Bool>
    private let folded: UnsafeMutablePointer<(low: Double, high: Double)>

    /// Folds for the records of `entityCount` entities, none known yet.
    init(entityCount: Int) {
        self.entityCount = max(1, entityCount)
        states = .allocate(capacity: self.entityCount)
        states.initialize(repeating: .unknown, count: self.entityCount)
        ordinals = .allocate(capacity: self.entityCount)
        ordinals.initialize(repeating: 0, count: self.entityCount)
        ranges = .allocate(capacity: self.entityCount)
        ranges.initialize(repeating: (0, 0), count: self.entityCount)
        active = .allocate(capacity: self.entityCount)
        active.initialize(repeating: false, count: self.entityCount)
        folded = .allocate(capacity: self.entityCount)
        folded.initialize(repeating: (0, 0), count: self.entityCount)
    }

    deinit {
        states.deallocate()
        ordinals.deallocate()
        ranges.deallocate()
        active.deallocate()
        folded.deallocate()
    }

    /// Whether records of the entity at `entity` (below the entity count) are tested with
    /// ``interval(of:)``.
    @inline(__always)
    func isActive(_ entity: Int) -> Bool { active[entity] }

    /// The fold of an active entity: the ordinal of its attribute and the doubles that pass.
    @inline(__always)
    func interval(of entity: Int) -> (ordinal: Int, low: Double, high: Double) {
        let bounds = folded[entity]
        return (ordinals[entity], bounds.low, bounds.high)
    }

    /// Whether the predicate of the entity at `entity` has been looked at.
    @inline(__always)
    func isLookedUp(_ entity: Int) -> Bool { states[entity] != .unknown }

    /// Looks at the predicate of the entity at `entity`, prepared by the test of its first
    /// record, and folds it.
    func lookUp(filter: ScanFilter, cutoff: RankingCutoff?, entity: Int) {
        precondition(entity >= 0 && entity < entityCount, "an entity index outside the layout")
        guard let range = filter.doubleRange(entity: entity) else {
            states[entity] = .none
            return
        }
        states[entity] = .range
        ordinals[entity] = range.ordinal
        ranges[entity] = (range.low, range.high)
        fold(entity, cutoff: cutoff)
    }

    /// Folds every entity's range with the cutoff as it is now.
    func refold(cutoff: RankingCutoff?) {
        for entity in 0..<entityCount where states[entity] == .range {
            fold(entity, cutoff: cutoff)
        }
    }

    /// Folds the range of the entity at `entity` with the cutoff: in use when there is no
    /// cutoff, or when it sorts first by the range's attribute (and knows that already).
    private func fold(_ entity: Int, cutoff: RankingCutoff?) {
        var (low, high) = ranges[entity]
        if let cutoff {
            guard let boundary = cutoff.doubleBoundary(entity: entity), boundary.ordinal == ordinals[entity] else {
                active[entity] = false
                return
            }
            if let bound = boundary.bound {
                if boundary.ascends { high = min(high, bound) } else { low = max(low, bound) }
            }
        }
        folded[entity] = (low, high)
        active[entity] = true
    }
}
