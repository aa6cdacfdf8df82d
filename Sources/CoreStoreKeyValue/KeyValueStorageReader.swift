import CoreStoreStorage

/// The ``StorageReader`` of a ``KeyValueStorage``: reads one engine snapshot, narrows fetches
/// with ``FetchPlanner``, re-checks the whole predicate on every candidate of a plan that is
/// not exact (``FieldPredicate``, with ``PredicateEvaluator``'s semantics), ranks with
/// ``RecordRanking`` (in ``RecordOrder``) and windows; aggregates stream
/// (``StreamingAggregate``). Nothing is left pending.
struct KeyValueStorageReader: StorageReader {
    let snapshot: any KeyValueReader
    let layout: KeyValueLayout

    var schema: StoreSchema { layout.schema }

    /// The record with `id`, also when `id.entity` is an ancestor of the record's entity.
    func record(_ id: RecordID) throws -> Record? {
        try layout.record(id, in: snapshot)
    }

    /// Looked up one by one below this many identifiers; more are read in runs (see
    /// ``loadInKeyOrder(_:entity:_:)``).
    static let fewestRecordsReadInRuns = 8

    /// The records in key order, keys close together read by one scan (a commit's merge reads
    /// a bulk delete's or update's records through this), then put back in input order.
    func records(_ ids: [RecordID]) throws -> [Record?] {
        if ids.count < Self.fewestRecordsReadInRuns { return try ids.map(record) }
        var results = [Record?](filledWith: nil, count: ids.count)
        // Keys are unique across a store's records: ordered by key, the identifiers that share
        // a hierarchy's key range and lie close together form runs.
        let order = ids.indices.sorted { ids[$0].key < ids[$1].key }
        var prefixes: [[UInt8]?] = []
        prefixes.reserveCapacity(order.count)
        var lastEntity = "", lastPrefix: [UInt8]?
        for position in order {
            let entity = ids[position].entity
            if entity != lastEntity || prefixes.isEmpty {
                lastEntity = entity
                lastPrefix = schema.entity(named: entity) == nil ? nil : layout.recordPrefix(ofHierarchyOf: entity)
            }
            prefixes.append(lastPrefix)
        }
        let checks = !snapshot.verifiesStoredBytes
        var first = 0
        while first < order.count {
            guard let prefix = prefixes[first] else {
                first += 1
                continue
            }
            var last = first
            while last + 1 < order.count, prefixes[last + 1] == prefix,
                  ids[order[last + 1]].key <= ids[order[last]].key &+ Self.scanGap { last += 1 }
            if first == last {
                results[order[first]] = try record(ids[order[first]])
            } else {
                // One scan over the run (see `scan(_:entity:_:)`), which hands over the records
                // of its keys; each goes to every position that asked for its key.
                var next = first
                _ = try scan(order[first...last].map { ids[$0].key }[...], entity: ids[order[first]].entity) { value in
                    let stored = try RecordCodec.decode(value, names: layout.entityNames, checksChecksum: checks)
                    while next <= last && ids[order[next]].key < stored.id.key { next += 1 }
                    while next <= last && ids[order[next]].key == stored.id.key {
                        if schema.entity(stored.id.entity, isKindOf: ids[order[next]].entity) { results[order[next]] = stored }
                        next += 1
                    }
                    return true
                }
            }
            first = last + 1
        }
        return results
    }

    func fetch(_ request: FetchRequest) throws -> FetchResult {
        let plan = try FetchPlanner(layout: layout).plan(request)
        let window = request.limit.map { max(request.offset, 0) + max($0, 0) }
        var records: [Record] = []
        if request.sortDescriptors.isEmpty || plan.isOrdered {
            // Matches come in the requested order: decode them as they come and stop early.
            if window != 0, !request.knownRecords.isEmpty, plan.isExact, plan.entities.count == 1, let entity = plan.entities.first {
                // The index names the matches; only those the asker does not hold are read.
                records = try exactRecords(plan, entity: entity, window: window, known: request.knownRecords)
            } else if window != 0 {
                try reserveForWholeHierarchy(&records, request, plan, window: window)
                let known = request.knownRecords, skipsKnown = !known.isEmpty, names = layout.entityNames.names
                try forEachMatch(request.predicate, plan, entity: request.entity) { candidate, entity in
                    if skipsKnown && known.contains(candidate.key) {
                        // The asker holds this record's values: its identifier is enough.
                        records.append(Record(identifierOnly: RecordID(entity: names[entity], key: candidate.key)))
                    } else {
                        records.append(try candidate.takeRecord())
                    }
                    if let window, records.count >= window { return false }
                    return true
                }
            }
        } else {
            // Rank on the sort keys alone; with a limit only the best offset + limit are kept.
            var ranking = RecordRanking(request.sortDescriptors, capacity: window, layout: layout, known: request.knownRecords)
            try forEachMatch(request.predicate, plan, entity: request.entity, cutoff: ranking.cutoff) { candidate, entity in
                try ranking.add(candidate, entity: entity)
                return true
            }
            records = try ranking.records()
        }
        return FetchResult(records: RecordWindow.apply(records, offset: request.offset, limit: request.limit))
    }

    /// Reads only the index when its entries are the answer (an exact plan of one entity, in
    /// the requested order); otherwise tests the candidates' bytes without decoding them. A
    /// sort that no index gives is ranked by ``fetch(_:)``.
    func recordIDs(_ request: FetchRequest, schema: StoreSchema) throws -> [RecordID] {
        let plan = try FetchPlanner(layout: layout).plan(request)
        guard request.sortDescriptors.isEmpty || plan.isOrdered else {
            return try fetch(request).records.map(\.id)
        }
        let window = request.limit.map { max(request.offset, 0) + max($0, 0) }
        var ids: [RecordID] = []
        if window == 0 { return [] }
        if plan.isExact, plan.entities.count == 1, let entity = plan.entities.first {
            ids = try exactKeys(plan, window: window).map { RecordID(entity: entity, key: $0) }
        } else {
            let names = layout.entityNames.names
            try forEachMatch(request.predicate, plan, entity: request.entity) { candidate, index in
                ids.append(RecordID(entity: names[index], key: candidate.key))
                return window.map { ids.count < $0 } ?? true
            }
        }
        return RecordWindow.apply(ids, offset: request.offset, limit: request.limit)
    }

    /// The record keys an exact plan of one entity reads from its index alone, in the order a
    /// fetch visits them: index order for an ordered plan (the first `window` entries are the
    /// answer), otherwise record-key order, each key once.
    private func exactKeys(_ plan: FetchPlan, window: Int?) throws -> [Int64] {
        var keys: [Int64] = []
        let checksEntries = !snapshot.verifiesStoredBytes
        for range in plan.indexRanges {
            try snapshot.scanPairs(from: range.lowerBound, to: range.upperBound) { entry, value in
                if checksEntries { try IndexEntryChecksum.check(entry: entry, value: value) }
                keys.append(try KeyValueLayout.recordKey(ofEntry: entry))
                // In index order the first `window` entries are the answer; in key order
                // (no sort) every entry must be seen first.
                return !(plan.isOrdered && window.map { keys.count >= $0 } ?? false)
            }
            if plan.isOrdered, let window, keys.count >= window { break }
        }
        if plan.isOrdered { return keys }
        keys.sort()
        var unique: [Int64] = []
        unique.reserveCapacity(keys.count)
        for (i, key) in keys.enumerated() where i == 0 || keys[i - 1] != key { unique.append(key) }
        return unique
    }

    /// The records of an exact plan of one entity when the asker holds some of them: the
    /// held ones named from the index alone (no record is read for them), the others read in
    /// runs of close keys. In the order ``forEachMatch(_:_:entity:_:)`` visits them, at most
    /// `window` of them.
    private func exactRecords(_ plan: FetchPlan, entity: String, window: Int?, known: KnownRecordKeys) throws -> [Record] {
        var keys = try exactKeys(plan, window: window)
        if let window, keys.count > window { keys.removeLast(keys.count - window) }
        let missing = keys.filter { !known.contains($0) }
        let loaded = try records(missing.map { RecordID(entity: entity, key: $0) })
        var records: [Record] = []
        records.reserveCapacity(keys.count)
        var next = 0
        for key in keys {
            if known.contains(key) {
                records.append(Record(identifierOnly: RecordID(entity: entity, key: key)))
            } else {
                // An entry whose record is gone is skipped, as a scan of the index skips it.
                if let record = loaded[next] { records.append(record) }
                next += 1
            }
        }
        return records
    }

    func count(_ request: FetchRequest) throws -> Int {
        var unsorted = request
        unsorted.sortDescriptors = []
        let plan = try FetchPlanner(layout: layout).plan(unsorted)
        let stopAfter = request.limit.map { max(request.offset, 0) + max($0, 0) }
        var n = 0
        if stopAfter != 0 {
            if unsorted.predicate == nil, case .entityScan = plan.access, selectsWholeHierarchy(plan, of: unsorted.entity) {
                // Every record in the hierarchy's key range counts: the stored count says how
                // many, or where the generation has none yet, the keys alone are counted.
                if let counts = try RecordCounts.stored(snapshot, layout: layout) {
                    let stored = counts.count(ofHierarchyOf: schema.rootEntity(of: unsorted.entity))
                    n = Int(clamping: stopAfter.map { min(Int64($0), stored) } ?? stored)
                } else {
                    let prefix = layout.recordPrefix(ofHierarchyOf: unsorted.entity)
                    try snapshot.scanKeys(from: prefix, to: TupleEncoder.elementsEnd(prefix)) { _ in
                        n += 1
                        return stopAfter.map { n < $0 } ?? true
                    }
                }
            } else if plan.isExact {
                // The entries in the plan's ranges are the answer: count them, read no record.
                let checksEntries = !snapshot.verifiesStoredBytes
                for range in plan.indexRanges {
                    try snapshot.scanPairs(from: range.lowerBound, to: range.upperBound) { entry, value in
                        if checksEntries { try IndexEntryChecksum.check(entry: entry, value: value) }
                        n += 1
                        return stopAfter.map { n < $0 } ?? true
                    }
                    if let stopAfter, n >= stopAfter { break }
                }
            } else {
                // Nothing is decoded beyond what the predicate reads.
                try forEachMatch(unsorted.predicate, plan, entity: unsorted.entity) { _, _ in
                    n += 1
                    return stopAfter.map { n < $0 } ?? true
                }
            }
        }
        let afterOffset = max(0, n - max(request.offset, 0))
        return request.limit.map { min($0, afterOffset) } ?? afterOffset
    }

    /// Makes room in `records` for every record of a read of a whole hierarchy without a
    /// predicate (up to `window`), from the stored count: the result is then built in one
    /// allocation, not grown and copied a dozen times on the way to 100,000 records.
    private func reserveForWholeHierarchy(_ records: inout [Record], _ request: FetchRequest, _ plan: FetchPlan, window: Int?) throws {
        guard request.predicate == nil, case .entityScan = plan.access, selectsWholeHierarchy(plan, of: request.entity),
              let counts = try RecordCounts.stored(snapshot, layout: layout) else { return }
        // A damaged counter must not make a huge allocation: past this, the array grows.
        let stored = min(Int(clamping: counts.count(ofHierarchyOf: schema.rootEntity(of: request.entity))), 1 << 24)
        records.reserveCapacity(window.map { min($0, stored) } ?? stored)
    }

    /// Whether the plan selects every concrete entity whose records share `entity`'s key range
    /// (its root's hierarchy), so that every record in that range matches the entity.
    private func selectsWholeHierarchy(_ plan: FetchPlan, of entity: String) -> Bool {
        let root = schema.rootEntity(of: entity)
        return schema.entities.allSatisfy { description in
            description.isAbstract || !schema.entity(description.name, isKindOf: root) || plan.entities.contains(description.name)
        }
    }

    /// Visits the records the plan reads that are of the plan's entities and satisfy
    /// `predicate`, until `visit` returns `false`: in the index's order when the plan is
    /// ordered, otherwise in record-key order. `visit` gets the candidate and the index of its
    /// entity in ``KeyValueLayout/entityNames``.
    ///
    /// The predicate is tested on attributes read from the record's bytes (``FieldPredicate``);
    /// a record is decoded only for the parts that need it and for `visit`.
    ///
    /// With a `cutoff` (a limited ranking's), a match that ranks after the ranking's kept
    /// entries by its first sort value is skipped instead of visited.
    func forEachMatch(_ predicate: RecordPredicate?, _ plan: FetchPlan, entity: String, cutoff: RankingCutoff? = nil,
                      _ visit: (ScanCandidate, Int) throws -> Bool) throws {
        if plan.entities.isEmpty { return }
        let names = layout.entityNames
        let selected = names.names.map { plan.entities.contains($0) }
        let box = SnapshotBox(reader: self)
        let evaluator = PredicateEvaluator(schema: schema) { id in try box.reader.record(id) }
        // An exact plan reads exactly the records that satisfy the predicate (as a count of it
        // trusts): testing them again would only repeat the index's answer.
        let filter = ScanFilter(plan.isExact ? nil : predicate, names: names.names, schema: schema, evaluator: evaluator)
        let candidate = ScanCandidate(names: names, checksChecksums: !snapshot.verifiesStoredBytes)
        // Borrowed, not retained for each record: the caller holds it for the whole scan.
        let cutoff = cutoff.map(Unmanaged.passUnretained)
        // Returns whether to go on.
        func consider(_ bytes: UnsafeRawBufferPointer) throws -> Bool {
            guard let index = try candidate.reset(bytes), selected[index],
                  try filter.accepts(candidate, entity: index) else { return true }
            if let cutoff, try cutoff._withUnsafeGuaranteedRef({ try $0.excludes(candidate, entity: index) }) { return true }
            return try visit(candidate, index)
        }
        switch plan.access {
        case .entityScan:
            let prefix = layout.recordPrefix(ofHierarchyOf: entity)
            if let cutoff, filter.tests {
                try scanFolding(from: prefix, candidate: candidate, selected: selected, filter: filter, cutoff: cutoff.takeUnretainedValue(), visit)
            } else if cutoff == nil && !filter.tests {
                // Nothing to test: every record of a selected entity is visited, with no call
                // between the engine's loop and the visit.
                try snapshot.scanValues(from: prefix, to: TupleEncoder.elementsEnd(prefix)) { bytes in
                    guard let index = try candidate.reset(bytes), selected[index] else { return true }
                    return try visit(candidate, index)
                }
            } else {
                try snapshot.scanValues(from: prefix, to: TupleEncoder.elementsEnd(prefix)) { value in
                    try consider(value)
                }
            }
        case .indexRange(_, let lower, let upper):
            let range = FetchPlan.KeyRange(lowerBound: lower, upperBound: upper)
            if plan.isOrdered {
                try loadInIndexOrder([range], entity: entity, consider)
            } else {
                try loadInKeyOrder([range], entity: entity, consider)
            }
        case .indexRanges(_, let ranges):
            if plan.isOrdered {
                try loadInIndexOrder(ranges, entity: entity, consider)
            } else {
                try loadInKeyOrder(ranges, entity: entity, consider)
            }
        }
    }

    /// The entity scan of ``forEachMatch(_:_:entity:cutoff:_:)`` for a limited ranking with a
    /// predicate: where the predicate is a range of the ranking's first sort key, the range test
    /// and the cutoff are one interval (``ScanRangeFold``); elsewhere each record takes the
    /// separate tests.
    private func scanFolding(from prefix: [UInt8], candidate: ScanCandidate, selected: [Bool], filter: ScanFilter,
                             cutoff: RankingCutoff, _ visit: (ScanCandidate, Int) throws -> Bool) throws {
        let fold = ScanRangeFold(entityCount: selected.count)
        // The separate tests, for a record whose header is read.
        func considerTested(_ index: Int) throws -> Bool {
            guard try filter.accepts(candidate, entity: index) else { return true }
            if try cutoff.excludes(candidate, entity: index) { return true }
            return try visitAndRefold(index)
        }
        // Visits the candidate and folds again: the ranking may have moved its cutoff.
        func visitAndRefold(_ index: Int) throws -> Bool {
            let goOn = try visit(candidate, index)
            fold.refold(cutoff: cutoff)
            return goOn
        }
        try snapshot.scanValues(from: prefix, to: TupleEncoder.elementsEnd(prefix)) { bytes in
            guard let index = try candidate.reset(bytes), selected[index] else { return true }
            if fold.isActive(index) {
                let interval = fold.interval(of: index)
                if case .double(let x) = try candidate.number(interval.ordinal), !x.isNaN {
                    guard x >= interval.low && x <= interval.high else { return true }
                    return try visitAndRefold(index)
                }
            }
            // The entity's first record prepares its predicate: look at it then.
            defer { if !fold.isLookedUp(index) { fold.lookUp(filter: filter, cutoff: cutoff, entity: index) } }
            return try considerTested(index)
        }
    }

    /// Visits the records behind the entries of `ranges` range after range, in index order
    /// (which is the sort order of an ordered plan), until `consider` returns `false`.
    private func loadInIndexOrder(_ ranges: [FetchPlan.KeyRange], entity: String, _ consider: (UnsafeRawBufferPointer) throws -> Bool) throws {
        var goOn = true
        var recordKey = RecordKeyBuffer(layout: layout)
        let checksEntries = !snapshot.verifiesStoredBytes
        for range in ranges where goOn {
            try snapshot.scanPairs(from: range.lowerBound, to: range.upperBound) { entry, value in
                if checksEntries { try IndexEntryChecksum.check(entry: entry, value: value) }
                recordKey.set(entity: entity, key: try KeyValueLayout.recordKey(ofEntry: entry))
                goOn = try load(recordKey.bytes, consider)
                return goOn
            }
        }
    }

    /// Visits the records behind the entries of `ranges` in record-key order, each once, until
    /// `consider` returns `false`.
    ///
    /// Keys close together are read by one scan of the records between them, not one lookup
    /// each: a cursor's step costs a fraction of a lookup, which descends the tree from its
    /// root (ids handed out in order make the records of one range of an index mostly
    /// neighbours). A scan reads at most ``scanGap`` - 1 records nobody asked for between two
    /// wanted ones, and skips them.
    private func loadInKeyOrder(_ ranges: [FetchPlan.KeyRange], entity: String, _ consider: (UnsafeRawBufferPointer) throws -> Bool) throws {
        var keys: [Int64] = []
        let checksEntries = !snapshot.verifiesStoredBytes
        for range in ranges {
            try snapshot.scanPairs(from: range.lowerBound, to: range.upperBound) { entry, value in
                if checksEntries { try IndexEntryChecksum.check(entry: entry, value: value) }
                keys.append(try KeyValueLayout.recordKey(ofEntry: entry))
                return true
            }
        }
        keys.sort()
        var recordKey = RecordKeyBuffer(layout: layout)
        var first = 0
        while first < keys.count {
            // The run of keys each at most `scanGap` beyond the previous one.
            var last = first
            while last + 1 < keys.count, keys[last + 1] <= keys[last] &+ Self.scanGap { last += 1 }
            let goOn: Bool
            if first == last || keys[first] == keys[last] {
                recordKey.set(entity: entity, key: keys[first])
                goOn = try load(recordKey.bytes, consider)
            } else {
                goOn = try scan(keys[first...last], entity: entity, consider)
            }
            if !goOn { return }
            first = last + 1
        }
    }

    /// The widest gap between two wanted record keys that one scan reads across.
    static let scanGap: Int64 = 8

    /// Hands the records of `keys` (ascending, duplicates allowed) to `consider`, in one scan
    /// from the first to the last; the records in between that are not wanted are skipped.
    /// Returns whether to go on.
    private func scan(_ keys: ArraySlice<Int64>, entity: String, _ consider: (UnsafeRawBufferPointer) throws -> Bool) throws -> Bool {
        guard let lowest = keys.first, let highest = keys.last else { return true }
        let lowerBound = layout.recordKey(entity: entity, key: lowest)
        let upperBound = highest == .max
            ? TupleEncoder.elementsEnd(layout.recordPrefix(ofHierarchyOf: entity))
            : layout.recordKey(entity: entity, key: highest + 1)
        var next = keys.startIndex
        var goOn = true
        try snapshot.scanPairs(from: lowerBound, to: upperBound) { storedKey, value in
            let key = try KeyValueLayout.recordKey(ofEntry: storedKey)
            while next < keys.endIndex && keys[next] < key { next += 1 }
            guard next < keys.endIndex else { return false }
            guard keys[next] == key else { return true }
            goOn = try consider(value)
            return goOn
        }
        return goOn
    }

    /// Hands the record stored under `recordKey` (behind one index entry) to `consider`; a
    /// missing one is skipped. Returns whether to go on.
    private func load(_ recordKey: [UInt8], _ consider: (UnsafeRawBufferPointer) throws -> Bool) throws -> Bool {
        var goOn = true
        _ = try snapshot.withValue(recordKey) { goOn = try consider($0) }
        return goOn
    }
}

/// Orders matching records in ``RecordOrder`` (as ``RecordSorter`` does) while they are scanned,
/// from their sort keys alone; only the records that end up in the result are decoded.
///
/// With a `capacity` (offset + limit of the fetch) it keeps just the best `capacity` records
/// (``RankedEntries``, a bounded top-k), so a limited fetch over n matches costs O(n log k) and
/// k decodes instead of a sort of n decoded records. A record the asker already holds
/// (``FetchRequest/knownRecords``) is kept as its identifier: no bytes copied, nothing decoded.
struct RecordRanking {
    /// What is kept of a ranked record.
    private enum Kept {
        /// Its bytes, copied from the engine, decoded only at the end.
        case bytes([UInt8])
        /// Its entity (index in ``KeyValueLayout/entityNames``) and key: the asker holds it.
        case known(entity: Int, key: Int64)
    }

    /// The kept records.
    private var ranking: RankedEntries<Kept>
    /// The keys whose records are kept as identifiers.
    private let known: KnownRecordKeys
    /// Whether ``known`` holds any key.
    private let skipsKnown: Bool
    /// The layout, for ordinals and entity names.
    private let layout: KeyValueLayout
    /// The sort-key ordinals per entity index; `nil` until the entity's first record.
    private var ordinals: [[Int]?]
    /// The entity index of the last record added, and the ordinal of its first sort key (`-1`
    /// for none): what the quick test of most records reads, without touching ``ordinals``.
    private var lastEntity = -1, lastFirstOrdinal = -1
    /// The error ``RecordSorter`` would throw (a sort key the entity lacks), thrown once the
    /// scan is over so that errors of the predicate, which come first in a fetch, still win.
    private var error: (any Error)?
    /// The sort keys of the record being added; reused, copied only when the record is kept.
    private var scratch: [Value] = []
    /// For the scan that feeds a limited ranking: where the kept entries end, kept current.
    let cutoff: RankingCutoff?

    /// A ranking by `descriptors` keeping at most `capacity` records (`nil`: all).
    init(_ descriptors: [RecordSortDescriptor], capacity: Int?, layout: KeyValueLayout, known: KnownRecordKeys = KnownRecordKeys()) {
        self.ranking = RankedEntries(order: RecordOrder(descriptors), capacity: capacity)
        self.layout = layout
        self.known = known
        self.skipsKnown = !known.isEmpty
        ordinals = Array(filledWith: nil, count: layout.entityNames.names.count)
        cutoff = capacity != nil && !descriptors.isEmpty
            ? RankingCutoff(entityCount: layout.entityNames.names.count, ascends: descriptors[0].ascending)
            : nil
    }

    /// Ranks the candidate, a record of the entity at `entity` in ``KeyValueLayout/entityNames``.
    mutating func add(_ candidate: ScanCandidate, entity: Int) throws {
        if entity != lastEntity {
            if ordinals[entity] == nil {
                do {
                    let found = try ranking.order.ordinals(in: layout.entityNames.names[entity], schema: layout.schema)
                    ordinals[entity] = found
                    if let first = found.first { cutoff?.setFirstOrdinal(first, ofEntity: entity) }
                } catch {
                    if self.error == nil { self.error = error }
                    ordinals[entity] = []
                }
            }
            lastEntity = entity
            lastFirstOrdinal = ordinals[entity]?.first ?? -1
        }
        guard error == nil else { return }
        // Once the ranking is full, most records rank after it by their first sort value:
        // a number read straight from the bytes settles that without making a `Value`.
        if ranking.capacity != nil, lastFirstOrdinal >= 0,
           ranking.ranksAfterKeptEntries(firstNumber: try candidate.rememberedNumber(lastFirstOrdinal)) {
            return
        }
        guard let entityOrdinals = ordinals[entity] else { return }
        if scratch.count != entityOrdinals.count { scratch = Array(filledWith: .null, count: entityOrdinals.count) }
        guard try ranking.collect(&scratch, key: candidate.key, { try candidate.attribute(entityOrdinals[$0]) }) else { return }
        let key = candidate.key
        ranking.add(scratch, key: key) { skipsKnown && known.contains(key) ? .known(entity: entity, key: key) : .bytes(Array(candidate.bytes)) }
        cutoff?.setBoundary(ranking.firstValueBoundary)
    }

    /// The ranked records, in order (known ones by identifier, the others decoded); throws the
    /// sort-key error if there was one.
    mutating func records() throws -> [Record] {
        if let error { throw error }
        let names = layout.entityNames
        return try ranking.payloads().map { kept in
            switch kept {
            case .bytes(let bytes):
                return try bytes.withUnsafeBytes { try RecordCodec.decode($0, names: names) }
            case .known(let entity, let key):
                return Record(identifierOnly: RecordID(entity: names.names[entity], key: key))
            }
        }
    }
}

/// Lets the evaluator's `@Sendable` resolver read the snapshot it runs inside. The resolver is
/// only called synchronously, inside the `read` that owns the snapshot.
private final class SnapshotBox: @unchecked Sendable {
    let reader: KeyValueStorageReader
    init(reader: KeyValueStorageReader) { self.reader = reader }
}
