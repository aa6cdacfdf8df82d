import Foundation
import CoreStoreSQL
import CoreStoreStorage

/// Answers reads on one connection inside one read transaction (one snapshot).
struct SQLiteReader: StorageReader {
    let connection: SQLiteConnection
    let mapping: SQLSchemaMapping

    private var loader: SQLiteRecordLoader { SQLiteRecordLoader(connection: connection, mapping: mapping) }

    func records(_ ids: [RecordID]) throws -> [Record?] {
        // Group by table: an identifier's entity may be a parent of the record's own entity.
        var byTable: [String: [Int64]] = [:]
        for id in ids {
            guard mapping.schema.entity(named: id.entity) != nil else { continue }
            byTable[mapping.tableName(of: id.entity), default: []].append(id.key)
        }
        var found: [Int64: Record] = [:]
        for (table, keys) in byTable {
            guard let description = mapping.tables[table] else { continue }
            let columns = SQLiteRecordLoader.columns(of: description, alias: "t0")
            var accumulator = SQLiteRecordLoader.Accumulator(loader: loader)
            for chunk in keys.chunked(500) {
                let placeholders = (1...chunk.count).map { "?\($0)" }.joined(separator: ", ")
                try connection.statement("SELECT \(columns) FROM \(table.sqlIdentifier) t0 WHERE t0.\"_key\" IN (\(placeholders))")
                    .query(chunk.map { .integer($0) }) { try accumulator.append($0) }
            }
            for record in try accumulator.finish() { found[record.id.key] = record }
        }
        return ids.map { id in
            guard let record = found[id.key], mapping.schema.entity(record.id.entity, isKindOf: id.entity) else { return nil }
            return record
        }
    }

    /// One `WHERE "_key" > after ORDER BY "_key" LIMIT limit` query on the entity's table,
    /// completed (to-many relationships included).
    func records(of entity: String, after key: Int64, limit: Int) throws -> [Record] {
        let entityMapping = try mapping.entity(entity)
        guard let table = mapping.tables[entityMapping.table] else { throw StorageError.unknownEntity(entity) }
        guard limit > 0 else { return [] }
        let sql = "SELECT \(SQLiteRecordLoader.columns(of: table, alias: "t0")) FROM \(table.name.sqlIdentifier) t0 "
            + "WHERE t0.\"_entity\" = ?1 AND t0.\"_key\" > ?2 ORDER BY t0.\"_key\" LIMIT ?3"
        var accumulator = SQLiteRecordLoader.Accumulator(loader: loader)
        try connection.statement(sql).query([.text(entity), .integer(key), .integer(Int64(limit))]) { try accumulator.append($0) }
        return try accumulator.finish()
    }

    func fetch(_ request: FetchRequest) throws -> FetchResult {
        let entity = try mapping.entity(request.entity)
        guard let table = mapping.tables[entity.table] else { throw StorageError.unknownEntity(request.entity) }
        var builder = SQLQueryBuilder(mapping: mapping)
        let sql = try builder.select(SQLiteRecordLoader.columns(of: table, alias: "t0"), request)
        var accumulator = SQLiteRecordLoader.Accumulator(loader: loader, reading: entity)
        try run(sql, builder) { try accumulator.append($0) }
        return FetchResult(records: try accumulator.finish())
    }

    func count(_ request: FetchRequest) throws -> Int {
        var builder = SQLQueryBuilder(mapping: mapping)
        let inner = try builder.select("1", request, sorted: false)
        var count = 0
        try run("SELECT count(*) FROM (\(inner))", builder) { count = Int($0.int64(0)) }
        return count
    }

    /// Runs a built statement, with its `corestore_test` leaves installed.
    func run(_ sql: String, _ builder: SQLQueryBuilder, _ row: (SQLiteStatement) throws -> Void) throws {
        try run(sql, parameters: builder.parameters, leaves: builder.leaves, row)
    }

    /// Runs a statement with `parameters`, with its `corestore_test` `leaves` installed.
    func run(_ sql: String, parameters: [SQLValue], leaves: [SQLFallbackLeaf], _ row: (SQLiteStatement) throws -> Void) throws {
        connection.functions.leaves = leaves
        connection.functions.pendingError = nil
        defer { connection.functions.leaves = [] }
        do {
            try connection.statement(sql).query(parameters, row)
        } catch {
            if let pending = connection.functions.pendingError { throw pending }
            throw error
        }
    }
}
