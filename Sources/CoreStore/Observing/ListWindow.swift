import CoreStoreStorage

/// The part of a monitored list that a `fetchOffset` and `fetchLimit` show.
///
/// The window keeps every matching object in order and applies each commit to that whole list
/// (incrementally, as an unwindowed list does); what observers see is the difference between
/// the window before and after, so an object entering the window because another one left
/// above it is reported as inserted, and the one pushed out below as deleted.
struct ListWindow {
    /// How many leading members are skipped.
    let offset: Int
    /// The most members shown; `nil` shows every member after the offset.
    let limit: Int?
    /// Every matching object in order (one section: sections are made from the window).
    private(set) var all: ListState

    init(offset: Int, limit: Int?, ordering: ListOrdering, entries: [ListEntry]) {
        self.offset = offset
        self.limit = limit
        self.all = ListState(ordering: ordering, isSectioned: false, entries: entries)
    }

    /// The members the window shows, in order.
    var visibleEntries: [ListEntry] {
        Array(all.entries[RecordWindow.indexes(count: all.entries.count, offset: offset, limit: limit)])
    }

    /// Applies a commit to the whole list and returns what it means for the window: a complete
    /// delta naming every member the window shows afterwards.
    mutating func visibleDelta(for delta: ListDelta) -> ListDelta {
        _ = all.apply(delta)
        var visible = ListDelta(records: delta.records, isComplete: true)
        visible.updated = delta.updated
        visible.liveObjects = delta.liveObjects
        for entry in visibleEntries { visible.matches[entry.id] = entry }
        return visible
    }
}
