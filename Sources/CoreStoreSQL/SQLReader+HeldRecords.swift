import CoreStoreStorage

extension SQLReader {
    /// The fewest held records (``FetchRequest/knownRecords``) for which a fetch asks for the
    /// matching keys first: with fewer, the rows it would not read are too few to pay for the
    /// second statement.
    static var keysFirstMinimumHeld: Int { 64 }

    /// Whether `request` is read by ``fetchHeldRecordsByKey(_:entity:)`` first: the store keeps
    /// a ``SQLHeldRecordsMemory`` that says so for the entity, the entity is alone in its table
    /// (every key the table holds is one of its records), the records are asked for in key
    /// order (`inKeyOrder`: no sort and no window, so the sorted keys are the whole order), and
    /// the asker holds enough records.
    func readsHeldRecordsByKey(_ request: FetchRequest, entity: SQLSchemaMapping.EntityMapping, inKeyOrder: Bool) -> Bool {
        guard inKeyOrder, let memory = heldRecordsMemory, entity.isAloneInTable,
              request.knownRecords.count >= Self.keysFirstMinimumHeld else { return false }
        return memory.prefersKeysFirst(for: entity.name)
    }

    /// A fetch whose asker holds most of the matching records, in two statements instead of a
    /// whole row per match: the matching keys (as one value where the dialect makes one,
    /// ``SQLDialect/keyList(_:)``, else a row each), then the whole rows of the keys the asker
    /// does not hold; the held ones come back by identifier alone, as
    /// ``FetchRequest/knownRecords`` allows. Both statements see the read's one snapshot, so the
    /// second finds every key the first returned. On PostgreSQL this answers a repeated fetch
    /// of 1,000 held rows with one array instead of 1,000 rows for the server to send and the
    /// client to parse. On SQLite an index that answers the predicate holds the keys too, so the
    /// first statement reads no table row at all (W3 and W14 in the benchmark: one index walk
    /// instead of a table lookup per match).
    ///
    /// `nil` when the request is not read this way after all: its predicate needs the
    /// evaluator, or fewer than half of the matches are held (then one whole-row select reads
    /// them in one pass, and the entity's next fetch goes straight to it). Records the outcome
    /// in the store's ``SQLHeldRecordsMemory``.
    func fetchHeldRecordsByKey(_ request: FetchRequest, entity: SQLSchemaMapping.EntityMapping) throws -> [Record]? {
        guard var keys = try unorderedMatchingKeys(request) else { return nil }
        keys.sort()
        let known = request.knownRecords
        let name = entity.name
        var unheld: [RecordID] = []
        for key in keys where !known.contains(key) { unheld.append(RecordID(entity: name, key: key)) }
        heldRecordsMemory?.remember(name, held: keys.count - unheld.count, of: keys.count)
        if unheld.count * 2 > keys.count { return nil }
        // In the order of `unheld`, which is the keys' order.
        let read = try records(unheld)
        var result: [Record] = []
        result.reserveCapacity(keys.count)
        var next = 0
        for key in keys {
            if next < unheld.count, unheld[next].key == key {
                guard let record = read[next] else {
                    throw StorageError.engine(code: 0, message: "the record \(unheld[next]) matched a fetch of \(name) but could not be read in the same snapshot; the database is damaged or was changed by another program")
                }
                result.append(record)
                next += 1
            } else {
                result.append(Record(identifierOnly: RecordID(entity: name, key: key)))
            }
        }
        return result
    }
}
