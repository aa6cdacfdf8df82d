import CoreStoreStorage

/// A sorted, limited fetch ("the 100 highest scores") that the database sorts by the request's
/// sort keys alone, with the reader breaking ties by record key instead of an `ORDER BY … _key`
/// term. On SQLite that term costs every row that passes the filter a rowid read and a longer
/// comparison in the top-N sort: 5% of a 100,000-row scan measured with the `sqlite3` library.
///
/// The select asks for one row more on each side of the window (the row before the offset, and
/// the row after the last one). When the first row of the window sorts equal to the row before
/// it, or the last to the row after it, a tie crosses a window edge: which of the tied records
/// belong in the window depends on their keys, which the database did not look at. Then
/// ``window(of:schema:)`` returns `nil` and the reader runs the select with the tie-break
/// (and remembers, in its ``SQLSortTieMemory``, that this sort ties). Otherwise every group of
/// tied records lies wholly inside the window, and ordering each group by key gives exactly
/// ``RecordOrder``'s result.
///
/// Records sort equal in the database exactly when ``RecordOrder/compareSortValues(_:_:)`` says
/// so: the `ORDER BY` terms are written so that the database's order, then `_key`, is
/// ``RecordOrder``'s (which the conformance suite checks), and that holds for every assignment
/// of keys only if the two agree on which records tie.
package struct SQLTopRowsWindow {
    /// Beyond this limit the window is not read this way: the tie check needs every row's
    /// values, so rows the asker holds are decoded too (``FetchRequest/knownRecords`` is not
    /// used), which for a large window costs more than the tie-break saves.
    package static let maximumLimit = 1_000

    /// The request as the database runs it: its window widened by the rows around it.
    package let widened: FetchRequest
    /// The request's sort keys, which also name the sort in the ``SQLSortTieMemory``.
    private let order: RecordOrder
    /// 1 when the select starts at the row before the requested offset, else 0.
    private let leading: Int
    /// The requested limit.
    private let limit: Int

    /// The window of `request` read without the key tie-break, or `nil` when the request has no
    /// sort keys, no limit (or 0), a limit above ``maximumLimit``, or a sort the memory says
    /// ties.
    package init?(_ request: FetchRequest, memory: SQLSortTieMemory?) {
        guard let memory, let limit = request.limit, limit > 0, limit <= Self.maximumLimit, !request.sortDescriptors.isEmpty,
              !memory.ties(request.entity, request.sortDescriptors) else { return nil }
        order = RecordOrder(request.sortDescriptors)
        leading = request.offset > 0 ? 1 : 0
        self.limit = limit
        var widened = request
        widened.offset = request.offset - leading
        widened.limit = limit + leading + 1
        widened.knownRecords = KnownRecordKeys()
        self.widened = widened
    }

    /// The requested window of `records` (the widened select's rows, in the database's order)
    /// in ``RecordOrder``, tied records by key; `nil` when a tie crosses an edge of the window.
    package func window(of records: [Record], schema: StoreSchema) throws -> [Record]? {
        guard records.count > leading else { return [] }
        let end = min(records.count, leading + limit)
        if leading == 1, records.count > 1, try sortEqually(records[0], records[1], schema: schema) { return nil }
        if records.count > end, try sortEqually(records[end - 1], records[end], schema: schema) { return nil }
        // Every run of tied records lies inside the window: the reference sort of the window
        // alone puts it in the order the sort of every matching record gives.
        var window = Array(records[leading..<end])
        try RecordSorter(schema: schema, sortDescriptors: order.sortDescriptors).sort(&window)
        return window
    }

    /// Whether `a` and `b` have equal sort values (``RecordOrder/compareSortValues(_:_:)``).
    private func sortEqually(_ a: Record, _ b: Record, schema: StoreSchema) throws -> Bool {
        func values(_ record: Record) throws -> [Value] {
            try order.ordinals(in: record.id.entity, schema: schema).map { record.attributes[$0] }
        }
        return order.compareSortValues(try values(a), try values(b)) == 0
    }

    /// Notes in `memory` that the request's sort tied across a window edge.
    package func noteTie(in memory: SQLSortTieMemory?) {
        memory?.noteTie(widened.entity, order.sortDescriptors)
    }
}
