/// The records a commit inserted minus those it deleted, per entity: what a store that keeps
/// a count of each entity's records adds to them in the commit's own transaction (the key-value
/// tier's `RecordCounts`, PostgreSQL's `SQLRecordCounts`).
package struct RecordCountDeltas: Sendable {
    /// The first entity met and its delta: most commits touch one entity, which then costs no
    /// array.
    private var first: (entity: String, delta: Int)?
    /// The other entities, in the order they were first met.
    private var others: [(entity: String, delta: Int)] = []
    /// Where the entity last counted is in ``others`` (`-1`: ``first``).
    private var last = -1

    /// No records counted yet; a writer adds them as it writes (``add(_:entity:)``).
    package init() {}

    /// The deltas of a merged change set: `+1` for each insert, `-1` for each delete (read or
    /// not: a store that removes unread deletes checks that each existed).
    package init(counting changes: MergedChanges) {
        for record in changes.inserts { add(1, entity: record.id.entity) }
        for record in changes.deletes { add(-1, entity: record.id.entity) }
        for id in changes.unreadDeletes { add(-1, entity: id.entity) }
    }

    /// Whether no record was inserted or deleted.
    package var isEmpty: Bool { first == nil }

    /// Each entity and its delta, in the order they were first met.
    package func forEach(_ body: (String, Int) -> Void) {
        guard let first else { return }
        body(first.entity, first.delta)
        for other in others { body(other.entity, other.delta) }
    }

    /// Counts one record of `entity` in (`+1`) or out (`-1`).
    package mutating func add(_ delta: Int, entity: String) {
        if last < 0, first?.entity == entity {
            first!.delta += delta
            return
        }
        if last >= 0, others[last].entity == entity {
            others[last].delta += delta
            return
        }
        guard first != nil else {
            first = (entity, delta)
            return
        }
        if first!.entity == entity {
            last = -1
            first!.delta += delta
        } else if let i = others.firstIndex(where: { $0.entity == entity }) {
            last = i
            others[i].delta += delta
        } else {
            last = others.count
            others.append((entity, delta))
        }
    }
}
