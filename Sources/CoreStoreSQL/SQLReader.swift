import Foundation
import CoreStoreStorage

/// Answers reads on one connection inside one read transaction (one snapshot): records by
/// identifier and by page, fetches, counts and aggregates, in the SQL of the mapping's dialect.
package struct SQLReader<Connection: SQLConnection>: StorageReader {
    package let connection: Connection
    package let mapping: SQLSchemaMapping
    /// The store's memory of fetches whose asker held most of their records; `nil`: every fetch
    /// reads whole rows (see ``fetchHeldRecordsByKey(_:entity:)``).
    package let heldRecordsMemory: SQLHeldRecordsMemory?
    /// The store's memory of sorts that tie at window edges; `nil`: the database breaks every
    /// tie (`ORDER BY … "_key"`), else limited fetches break them here (see
    /// ``SQLTopRowsWindow``).
    package let sortTieMemory: SQLSortTieMemory?
    /// The store's memory of double attributes whose sums failed the order-free test; `nil`:
    /// every aggregate tries any order first (see ``SQLOrderedSumMemory``).
    package let orderedSumMemory: SQLOrderedSumMemory?
    /// The store's table of record counts; `nil`: every count visits the rows (see
    /// ``count(_:)``).
    package let recordCounts: SQLRecordCounts?

    package init(
        connection: Connection, mapping: SQLSchemaMapping, heldRecordsMemory: SQLHeldRecordsMemory? = nil,
        sortTieMemory: SQLSortTieMemory? = nil, orderedSumMemory: SQLOrderedSumMemory? = nil, recordCounts: SQLRecordCounts? = nil
    ) {
        self.connection = connection
        self.mapping = mapping
        self.heldRecordsMemory = heldRecordsMemory
        self.sortTieMemory = sortTieMemory
        self.orderedSumMemory = orderedSumMemory
        self.recordCounts = recordCounts
    }

    private var loader: SQLRecordLoader<Connection> { SQLRecordLoader(connection: connection, mapping: mapping) }

    package func records(_ ids: [RecordID]) throws -> [Record?] {
        // Group by table: an identifier's entity may be a parent of the record's own entity.
        var byTable: [String: [Int64]] = [:]
        for id in ids {
            guard mapping.schema.entity(named: id.entity) != nil else { continue }
            byTable[mapping.tableName(of: id.entity), default: []].append(id.key)
        }
        var found: [Int64: Record] = [:]
        for (table, keys) in byTable {
            guard let description = mapping.tables[table] else { continue }
            let columns = SQLRecordLoader<Connection>.columns(of: description, alias: "t0")
            var accumulator = SQLRecordAccumulator(mapping: mapping)
            for chunk in keys.chunked(mapping.dialect.keysPerCondition) {
                let condition = mapping.dialect.keyListCondition("t0.\"_key\"", keys: chunk)
                try connection.statement("SELECT \(columns) FROM \(table.sqlIdentifier) t0 WHERE \(condition.sql)")
                    .query(condition.parameters) { try accumulator.append($0) }
            }
            for record in try accumulator.finish(with: loader) { found[record.id.key] = record }
        }
        return ids.map { id in
            guard let record = found[id.key], mapping.schema.entity(record.id.entity, isKindOf: id.entity) else { return nil }
            return record
        }
    }

    /// One `WHERE "_key" > after ORDER BY "_key" LIMIT limit` query on the entity's table,
    /// completed (to-many relationships included).
    package func records(of entity: String, after key: Int64, limit: Int) throws -> [Record] {
        let entityMapping = try mapping.entity(entity)
        guard let table = mapping.tables[entityMapping.table] else { throw StorageError.unknownEntity(entity) }
        guard limit > 0 else { return [] }
        let p = mapping.dialect.placeholder
        let sql = "SELECT \(SQLRecordLoader<Connection>.columns(of: table, alias: "t0")) FROM \(table.name.sqlIdentifier) t0 "
            + "WHERE t0.\"_entity\" = \(p(1)) AND t0.\"_key\" > \(p(2)) ORDER BY t0.\"_key\" LIMIT \(p(3))"
        var accumulator = SQLRecordAccumulator(mapping: mapping)
        try connection.statement(sql).query([.text(entity), .integer(key), .integer(Int64(limit))]) { try accumulator.append($0) }
        return try accumulator.finish(with: loader)
    }

    package func fetch(_ request: FetchRequest) throws -> FetchResult {
        let entity = try mapping.entity(request.entity)
        guard let table = mapping.tables[entity.table] else { throw StorageError.unknownEntity(request.entity) }
        var builder = SQLQueryBuilder(mapping: mapping)
        // Record-key order, when that is the whole order asked for, is the reader's to make
        // where the dialect says so.
        let inKeyOrder = request.sortDescriptors.isEmpty && request.limit == nil && request.offset == 0
        let ordersByKeyHere = mapping.dialect.ordersRecordsByKeyInReader && inKeyOrder
        let keysFirst = readsHeldRecordsByKey(request, entity: entity, inKeyOrder: inKeyOrder)
        if keysFirst, let records = try fetchHeldRecordsByKey(request, entity: entity) {
            return FetchResult(records: records)
        }
        if let topRows = SQLTopRowsWindow(request, memory: sortTieMemory),
           let records = try fetchTopRows(topRows, entity: entity, table: table) {
            return FetchResult(records: records)
        }
        let sql: String
        do {
            sql = try builder.select(wholeRowColumns(entity, table), request, sorted: !ordersByKeyHere)
        } catch is SQLNeedsEvaluator {
            return FetchResult(records: try fetchByEvaluating(request))
        }
        var accumulator = SQLRecordAccumulator(mapping: mapping, reading: entity, skipping: request.knownRecords)
        try run(sql, builder) { try accumulator.append($0) }
        if !keysFirst, request.knownRecords.count >= Self.keysFirstMinimumHeld, let memory = heldRecordsMemory {
            memory.remember(entity.name, held: accumulator.heldRows, of: accumulator.records.count)
        }
        var records = try accumulator.finish(with: loader)
        if ordersByKeyHere { Self.orderByKey(&records) }
        return FetchResult(records: records)
    }

    /// The select list of a fetch's whole rows: `_entity` is read unless every row of the table
    /// names the request's entity (and the dialect does not prefer the table's own columns).
    private func wholeRowColumns(_ entity: SQLSchemaMapping.EntityMapping, _ table: SQLSchemaMapping.Table) -> String {
        let readsEntity = !entity.isAloneInTable || mapping.dialect.readsWholeRowsAsStored
        return SQLRecordLoader<Connection>.columns(of: table, alias: "t0", readingEntity: readsEntity)
    }

    /// The records of a limited fetch sorted by the database without the key tie-break (see
    /// ``SQLTopRowsWindow``); `nil` when a tie crosses a window edge (noted in the memory) or
    /// the predicate needs the evaluator: then the caller reads it with the tie-break.
    private func fetchTopRows(_ topRows: SQLTopRowsWindow, entity: SQLSchemaMapping.EntityMapping, table: SQLSchemaMapping.Table) throws -> [Record]? {
        var builder = SQLQueryBuilder(mapping: mapping)
        let sql: String
        do {
            sql = try builder.select(wholeRowColumns(entity, table), topRows.widened, breakingTiesByKey: false)
        } catch is SQLNeedsEvaluator {
            return nil
        }
        var accumulator = SQLRecordAccumulator(mapping: mapping, reading: entity)
        try run(sql, builder) { try accumulator.append($0) }
        guard let window = try topRows.window(of: try accumulator.finish(with: loader), schema: mapping.schema) else {
            topRows.noteTie(in: sortTieMemory)
            return nil
        }
        return window
    }

    /// Puts `records` in record-key order: one pass when they already are (rows mostly come as
    /// they were inserted), a sort otherwise. Keys are unique, so the order is total.
    package static func orderByKey(_ records: inout [Record]) {
        var i = 1
        while i < records.count, records[i - 1].id.key < records[i].id.key { i += 1 }
        if i < records.count { records.sort { $0.id.key < $1.id.key } }
    }

    /// A select of the key columns only, in the request's order and window: the table's rows
    /// are not decoded, and an index that answers the predicate is enough.
    package func recordIDs(_ request: FetchRequest, schema: StoreSchema) throws -> [RecordID] {
        try selectRecordIDs(request, sorted: true)
    }

    /// ``recordIDs(_:schema:)`` without `ORDER BY` unless a window needs one: the engine
    /// returns the keys as the index or table it scans holds them, with no sort.
    package func unorderedRecordIDs(_ request: FetchRequest, schema: StoreSchema) throws -> [RecordID] {
        try selectRecordIDs(request, sorted: request.limit != nil || request.offset != 0)
    }

    private func selectRecordIDs(_ request: FetchRequest, sorted: Bool) throws -> [RecordID] {
        let entity = try mapping.entity(request.entity)
        // Rows of a table that holds only the request's entity all name it (see
        // `SQLRecordAccumulator`): then the key alone is selected, which an index on the
        // predicate's columns holds without the table's row. Otherwise each row's entity is
        // read too, and made into a string once per run of one entity.
        let isSole = entity.isAloneInTable
        if isSole && !sorted && request.limit == nil && request.offset == 0 {
            guard let keys = try unorderedMatchingKeys(request) else { return try fetchByEvaluating(request).map(\.id) }
            let name = entity.name
            return keys.map { RecordID(entity: name, key: $0) }
        }
        var builder = SQLQueryBuilder(mapping: mapping)
        let sql: String
        do {
            sql = try builder.select(isSole ? "t0.\"_key\"" : "t0.\"_key\", t0.\"_entity\"", request, sorted: sorted)
        } catch is SQLNeedsEvaluator {
            return try fetchByEvaluating(request).map(\.id)
        }
        var ids: [RecordID] = []
        var lastEntity = entity.name
        try run(sql, builder) { row in
            if !isSole, !row.textEquals(1, lastEntity) { lastEntity = row.text(1) ?? "" }
            ids.append(RecordID(entity: lastEntity, key: row.int64(0)))
        }
        return ids
    }

    /// The keys of the records `request` matches, of an entity alone in its table, in the order
    /// the database meets them: as one value where the dialect makes one
    /// (``SQLDialect/keyList(_:)``: one row to read instead of one per record), else a row each.
    /// An index on the predicate's columns holds them without the table's rows. `nil` when the
    /// predicate needs the evaluator.
    func unorderedMatchingKeys(_ request: FetchRequest) throws -> [Int64]? {
        let list = mapping.dialect.keyList("t0.\"_key\"")
        var builder = SQLQueryBuilder(mapping: mapping)
        let sql: String
        do {
            sql = try builder.select(list ?? "t0.\"_key\"", request, sorted: false, windowed: false)
        } catch is SQLNeedsEvaluator {
            return nil
        }
        var keys: [Int64] = []
        if list != nil {
            try run(sql, builder) { keys = try $0.int64List(0) }
        } else {
            try run(sql, builder) { keys.append($0.int64(0)) }
        }
        return keys
    }

    /// How many records `request` matches. A request without a predicate, on a store that keeps
    /// ``recordCounts``, reads the stored counts of its entities when they are current (then
    /// applies its offset and limit); every other count is made by the database from the rows.
    package func count(_ request: FetchRequest) throws -> Int {
        if let recordCounts, request.predicate == nil {
            _ = try mapping.entity(request.entity)
            let entities = request.includesSubentities ? mapping.schema.entityAndDescendants(request.entity) : [request.entity]
            if let total = try recordCounts.count(of: entities, on: connection, dialect: mapping.dialect) {
                return RecordWindow.indexes(count: total, offset: request.offset, limit: request.limit).count
            }
        }
        var builder = SQLQueryBuilder(mapping: mapping)
        let inner: String
        do {
            inner = try builder.select("1", request, sorted: false)
        } catch is SQLNeedsEvaluator {
            return try fetchByEvaluating(request).count
        }
        var count = 0
        try run("SELECT count(*) FROM (\(inner)) AS counted", builder) { count = Int($0.int64(0)) }
        return count
    }

    /// Runs a built statement.
    func run(_ sql: String, _ builder: SQLQueryBuilder, _ row: (any SQLRow) throws -> Void) throws {
        try connection.query(sql, parameters: builder.parameters, leaves: builder.leaves, row)
    }
}
