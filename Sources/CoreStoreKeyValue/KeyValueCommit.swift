import CoreStoreStorage

/// Writes one merged change set (see `ChangeMerger`, which also checked every record against
/// the schema) inside one engine write: records and every index entry.
///
/// Order: (1) removed and replaced records are deleted or overwritten, inserts are written
/// (a key already taken → `invalidRequest`); (2) the index entries of deleted records, and the
/// entries of updated records whose indexed values changed, are removed; (3) the entries of
/// inserted records and the changed entries of updated ones are written, each unique entry
/// checked against the entries already there — so swapping unique values inside one change set
/// succeeds. An update that leaves an index's values alone does not touch that index. Through
/// an engine that ``KeyValueWriter/prefersPutsInKeyOrder``, a large commit removes its stale
/// entries in key order and writes its non-unique new entries sorted, one index after the other
/// for inserts (see ``putEntries(of:keyBuffer:)``); unique entries keep the change set's order.
/// The engine discards everything when this throws.
struct KeyValueCommit {
    let writer: any KeyValueWriter
    let layout: KeyValueLayout

    var schema: StoreSchema { layout.schema }

    /// The stored records `ids` name (`nil` where none exists), for the merge.
    func load(_ ids: [RecordID]) throws -> [Record?] {
        try KeyValueStorageReader(snapshot: writer, layout: layout).records(ids)
    }

    /// Writes merged changes; returns how many records of each entity went in and out (see
    /// ``RecordCounts``).
    @discardableResult
    func write(_ changes: MergedChanges) throws -> RecordCountDeltas {
        var deltas = RecordCountDeltas()
        // Every record key, record and new entry is built in these buffers and lent to the
        // engine (``KeyValueWriter/put(keyBytes:valueBytes:)``): no arrays per write.
        var recordKey = RecordKeyBuffer(layout: layout)
        var keyBuffer: [UInt8] = [], valueBuffer: [UInt8] = []
        keyBuffer.reserveCapacity(64)
        // Entries to remove; the changed entries of updated records, those of unique indexes
        // with what they index (each is checked as it is written), the others in one batch.
        var staleEntries = IndexEntryBatch(reservingCapacity: changes.deletes.count + changes.updates.count, entrySize: 24)
        var changedUniqueEntries: [(entry: [UInt8], record: Record, plan: IndexEntryPlan)] = []
        var changedEntries = IndexEntryBatch(reservingCapacity: changes.updates.count, entrySize: 24)
        for old in changes.deletes {
            recordKey.set(entity: old.id.entity, key: old.id.key)
            try writer.delete(recordKey.bytes)
            deltas.add(-1, entity: old.id.entity)
            for plan in layout.entryPlans(maintainedBy: old.id.entity) { staleEntries.appendEntry { plan.appendEntry(of: old, to: &$0) } }
        }
        // Both versions of each update are read in place (as the inserts are below), and each
        // entry is built in one of two buffers reused for every update.
        var before: [UInt8] = [], after: [UInt8] = []
        if !changes.updates.isEmpty {
            before.reserveCapacity(64)
            after.reserveCapacity(64)
        }
        try changes.updates.withUnsafeBufferPointer { updates in
            for i in updates.indices {
                try Self.withVersions(of: updates.baseAddress.unsafelyUnwrapped + i) { old, new in
                    recordKey.set(entity: new.pointee.id.entity, key: new.pointee.id.key)
                    try putRecord(at: new, key: recordKey.bytes, encodingInto: &valueBuffer)
                    // An entry whose indexed values did not change stays as it is. (A unique
                    // entry is kept only when its values are exactly equal: `0.0` → `-0.0` keeps
                    // the encoding but must still be checked against the other records.)
                    for plan in layout.entryPlans(maintainedBy: new.pointee.id.entity) {
                        if plan.holdsSameValues(old.pointee, new.pointee) { continue }
                        plan.entry(ofRecordAt: old, into: &before)
                        plan.entry(ofRecordAt: new, into: &after)
                        if before == after, plan.index.kind != .unique
                            || plan.values(of: old.pointee) == plan.values(of: new.pointee) { continue }
                        staleEntries.append(before)
                        if plan.index.kind == .unique {
                            changedUniqueEntries.append((after, new.pointee, plan))
                        } else {
                            changedEntries.append(after)
                        }
                    }
                }
            }
        }
        let unchecked = try insertsKnownToBeNew(changes.inserts)
        // Inserts are read in place, through a buffer pointer: iterating the array would copy
        // (retain and release) each record's buffers, which after a large transaction are out
        // of the cache.
        try changes.inserts.withUnsafeBufferPointer { inserts in
            for i in inserts.indices {
                recordKey.set(entity: inserts[i].id.entity, key: inserts[i].id.key)
                if !(i < unchecked.count && unchecked[i]), try writer.withValue(recordKey.bytes, { _ in }) {
                    throw RecordValidator.insertedTwice(inserts[i].id)
                }
                try putRecord(at: inserts.baseAddress.unsafelyUnwrapped + i, key: recordKey.bytes, encodingInto: &valueBuffer)
                deltas.add(1, entity: inserts[i].id.entity)
            }
        }
        let sortsWrites = writer.prefersPutsInKeyOrder
        if sortsWrites && staleEntries.count >= Self.fewestWritesSorted {
            try staleEntries.forEachInKeyOrder { try writer.delete(Array($0)) }
        } else {
            try staleEntries.forEachInAddedOrder { try writer.delete(Array($0)) }
        }
        // Unique entries in the updates' order (the first violation is the first in that order,
        // as with the reference store), then the others, sorted for a writer that prefers it.
        for (entry, record, plan) in changedUniqueEntries {
            try checkUnique(record, plan.index)
            try putEntry(entry)
        }
        if sortsWrites && changedEntries.count >= Self.fewestWritesSorted {
            try changedEntries.forEachInKeyOrder { try putEntry($0) }
        } else {
            try changedEntries.forEachInAddedOrder { try putEntry($0) }
        }
        try putEntries(of: changes.inserts, keyBuffer: &keyBuffer)
        return deltas
    }

    /// Writes the index entries of `inserts`, record by record; for a writer that
    /// ``KeyValueWriter/prefersPutsInKeyOrder``, from ``fewestWritesSorted`` inserts on,
    /// see ``putEntriesInKeyOrder(of:keyBuffer:)``. Each unique entry is checked as it is
    /// written, so the first violation reported is the first in record order, as the reference
    /// store reports it.
    private func putEntries(of inserts: [Record], keyBuffer: inout [UInt8]) throws {
        if writer.prefersPutsInKeyOrder && inserts.count >= Self.fewestWritesSorted {
            return try putEntriesInKeyOrder(of: inserts, keyBuffer: &keyBuffer)
        }
        try inserts.withUnsafeBufferPointer { inserts in
            for i in inserts.indices {
                for plan in layout.entryPlans(maintainedBy: inserts[i].id.entity) {
                    if plan.index.kind == .unique { try checkUnique(inserts[i], plan.index) }
                    plan.entry(ofRecordAt: inserts.baseAddress.unsafelyUnwrapped + i, into: &keyBuffer)
                    try putEntry(keyBuffer)
                }
            }
        }
    }

    /// Writes the index entries of many `inserts` in the order a B-tree takes them best: first
    /// every unique entry, record by record (checked as above); then the other entries index by
    /// index, each index's entries sorted (``IndexEntryBatch``). The entries of one index lie
    /// together in the key space, so that consecutive puts land on the same pages instead of
    /// all over the indexes. Pass `position` writes every insert's entry of the index at
    /// `position` in its entity's plans.
    private func putEntriesInKeyOrder(of inserts: [Record], keyBuffer: inout [UInt8]) throws {
        try inserts.withUnsafeBufferPointer { inserts in
            var plans = PlanCursor(layout: layout)
            var hasPlans = false
            for i in inserts.indices {
                for plan in plans.plans(of: inserts[i].id.entity) {
                    hasPlans = true
                    guard plan.index.kind == .unique else { continue }
                    try checkUnique(inserts[i], plan.index)
                    plan.entry(ofRecordAt: inserts.baseAddress.unsafelyUnwrapped + i, into: &keyBuffer)
                    try putEntry(keyBuffer)
                }
            }
            var position = 0
            var more = hasPlans
            while more {
                more = false
                var batch = IndexEntryBatch(reservingCapacity: inserts.count, entrySize: 24)
                for i in inserts.indices {
                    let entityPlans = plans.plans(of: inserts[i].id.entity)
                    guard position < entityPlans.count else { continue }
                    if position + 1 < entityPlans.count { more = true }
                    let plan = entityPlans[position]
                    if plan.index.kind == .unique { continue }
                    batch.appendEntry { plan.appendEntry(ofRecordAt: inserts.baseAddress.unsafelyUnwrapped + i, to: &$0) }
                }
                try batch.forEachInKeyOrder { try putEntry($0) }
                position += 1
            }
        }
    }

    /// Runs `body` with pointers to the stored and the new version of the replacement at
    /// `replacement`, read in place: passing them by value would retain and release their
    /// arrays per update.
    static func withVersions<T>(
        of replacement: UnsafePointer<RecordReplacement>,
        _ body: (_ old: UnsafePointer<Record>, _ new: UnsafePointer<Record>) throws -> T
    ) rethrows -> T {
        guard let oldOffset = MemoryLayout<RecordReplacement>.offset(of: \.old),
              let newOffset = MemoryLayout<RecordReplacement>.offset(of: \.new) else {
            // Not laid out as stored properties (never with this package's types): copies.
            let (old, new) = (replacement.pointee.old, replacement.pointee.new)
            return try withUnsafePointer(to: old) { old in try withUnsafePointer(to: new) { try body(old, $0) } }
        }
        let base = UnsafeRawPointer(replacement)
        return try body((base + oldOffset).assumingMemoryBound(to: Record.self), (base + newOffset).assumingMemoryBound(to: Record.self))
    }

    /// The fewest index writes of one kind (the inserts' entries, the stale entries, the changed
    /// entries) that a writer preferring puts in key order gets sorted; fewer go as they come.
    static let fewestWritesSorted = 64

    /// The entry plans of the entity last asked for, kept for the next record.
    private struct PlanCursor {
        let layout: KeyValueLayout
        var entity: String?
        var current: [IndexEntryPlan] = []

        init(layout: KeyValueLayout) { self.layout = layout }

        mutating func plans(of entity: String) -> [IndexEntryPlan] {
            if entity != self.entity {
                self.entity = entity
                current = layout.entryPlans(maintainedBy: entity)
            }
            return current
        }
    }

    /// Writes the record at `record` under the record key `key`, encoded in `buffer`.
    private func putRecord(at record: UnsafePointer<Record>, key: [UInt8], encodingInto buffer: inout [UInt8]) throws {
        try put(RecordCodec.encode(recordAt: record, into: &buffer), bytesOf: buffer, at: key)
    }

    /// Writes the first `count` bytes of `buffer` under `key`.
    private func put(_ count: Int, bytesOf buffer: [UInt8], at key: [UInt8]) throws {
        try key.withUnsafeBytes { key in
            try buffer.withUnsafeBytes { try writer.put(keyBytes: key, valueBytes: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
    }

    /// Writes the index entry `entry` with its checksum.
    private func putEntry(_ entry: [UInt8]) throws {
        try entry.withUnsafeBytes { try putEntry($0) }
    }

    /// Writes the index entry whose bytes are `entry` with its checksum.
    private func putEntry(_ entry: UnsafeRawBufferPointer) throws {
        try IndexEntryChecksum.withValue(for: entry) { try writer.put(keyBytes: entry, valueBytes: $0) }
    }

    /// The fewest inserts of one hierarchy for which one range scan replaces their lookups. An
    /// engine's scan costs more than a lookup to start (a LevelDB iterator merges the memtable
    /// with every table file: several lookups' worth), so a few inserts are looked up one by one.
    static let fewestInsertsCheckedByScan = 8

    /// For each insert, whether its record key is certainly free, so that the per-insert `get`
    /// can be skipped: true for the inserts of a hierarchy whose keys ascend strictly in
    /// change-set order (no duplicates among them) when no record of that hierarchy is stored
    /// at or above the first of them (one seek per hierarchy instead of one lookup per insert).
    /// Inserts usually carry keys just assigned from the store's counter, which qualify. A
    /// hierarchy with fewer than ``fewestInsertsCheckedByScan`` inserts is not scanned. Empty
    /// (none known, and no array made) for fewer inserts than that in all.
    private func insertsKnownToBeNew(_ inserts: [Record]) throws -> [Bool] {
        if inserts.count < Self.fewestInsertsCheckedByScan { return [] }
        /// The inserts of one hierarchy.
        struct Run {
            /// The hierarchy's record-key prefix.
            let prefix: [UInt8]
            /// The key of the run's first insert.
            let first: Int64
            /// The key of the run's latest insert.
            var last: Int64
            /// Whether every key so far was above the one before.
            var ascending = true
            /// How many inserts the run has.
            var count: Int
        }
        var runs: [Run] = []
        var runOfInsert: [Int] = []
        runOfInsert.reserveCapacity(inserts.count)
        // The run of the previous insert's entity answers again without a prefix lookup.
        var lastEntity: String?, r = 0
        for i in inserts.indices {
            let key = inserts[i].id.key
            if inserts[i].id.entity != lastEntity {
                lastEntity = inserts[i].id.entity
                let prefix = layout.recordPrefix(ofHierarchyOf: inserts[i].id.entity)
                if let known = runs.firstIndex(where: { $0.prefix == prefix }) {
                    r = known
                } else {
                    runs.append(Run(prefix: prefix, first: key, last: key, count: 0))
                    r = runs.count - 1
                }
            }
            if runs[r].count > 0 && key <= runs[r].last { runs[r].ascending = false }
            runs[r].last = key
            runs[r].count += 1
            runOfInsert.append(r)
        }
        var free = [Bool](filledWith: false, count: runs.count)
        for (r, run) in runs.enumerated() where run.ascending && run.count >= Self.fewestInsertsCheckedByScan {
            var lower = run.prefix
            TupleEncoder.encodeInt(run.first, into: &lower)
            var taken = false
            try writer.scan(from: lower, to: TupleEncoder.elementsEnd(run.prefix), reverse: false) { _, _ in
                taken = true
                return false
            }
            free[r] = !taken
        }
        return runOfInsert.map { free[$0] }
    }

    private func load(_ id: RecordID) throws -> Record? {
        try layout.record(id, in: writer)
    }

    /// Throws when another record already holds `record`'s (nil-free) tuple of `index`. Entries
    /// with the same encoding are compared exactly (as `Value ==` does), so `0.0` and `-0.0`,
    /// which share an encoding, do not collide — the reference store's rule.
    private func checkUnique(_ record: Record, _ index: IndexDefinition) throws {
        let tuple = layout.values(of: record, in: index)
        if tuple.contains(.null) { return }
        var prefix = layout.prefix(of: index)
        for value in tuple { TupleEncoder.encode(value, into: &prefix) }
        var conflict = false
        let checksEntries = !writer.verifiesStoredBytes
        try writer.scan(from: prefix, to: TupleEncoder.elementsEnd(prefix), reverse: false) { entry, value in
            if checksEntries { try IndexEntryChecksum.check(entry: entry, value: value) }
            let key = try KeyValueLayout.recordKey(ofEntry: entry)
            guard key != record.id.key, entry.count == prefix.count + 9 else { return true }
            if let other = try layout.record(RecordID(entity: index.scope, key: key), in: writer), layout.values(of: other, in: index) == tuple {
                conflict = true
                return false
            }
            return true
        }
        if conflict {
            throw StorageError.uniqueConstraintViolation(entity: index.scope, attributes: index.componentNames, values: tuple)
        }
    }
}
