import Foundation
import CoreStoreStorage

/// The `corestore_record_counts` table of a store whose database counts rows by visiting them
/// (PostgreSQL's `count(*)` reads every row of a table, or of an index, in the reader's
/// snapshot): how many records each entity holds, kept in each commit's own transaction, so
/// that a count of every record of an entity (with or without its subentities) is one read of a
/// few small rows instead of a pass over the table.
///
/// Rows: one per entity of the schema (its name → its records, subentities not included), and a
/// stamp row under the empty name (no entity has it) holding the commit sequence the counts were
/// last brought to. A commit adds its ``RecordCountDeltas`` and stamps its own sequence, but only
/// when the stamp holds the sequence of the commit before it; a reader trusts the counts only
/// when the stamp equals the store's sequence in its own snapshot and every entity it asks about
/// has a row. So a commit that does not keep the counts — a process still running a CoreStore
/// from before the table existed, rows changed by hand — leaves them stale, never wrong: counts
/// are then made by visiting the rows again, until the next open of the store counts every
/// table anew (``recount(mapping:sequence:on:)``).
package struct SQLRecordCounts: Sendable {
    package static let table = "corestore_record_counts"

    /// The name of the stamp row.
    package static let stampName = ""

    /// Creates the table when it is missing (a store made before it existed gets it on its next
    /// open, then ``recount(mapping:sequence:on:)`` fills it).
    package static let creationSQL = "CREATE TABLE IF NOT EXISTS \(table.sqlIdentifier) (entity TEXT PRIMARY KEY, records BIGINT NOT NULL)"

    /// A query of one row and column: the store's commit sequence, as an integer, in the
    /// reader's snapshot.
    package let sequenceQuery: String

    /// Counts checked against the sequence `sequenceQuery` reads.
    package init(sequenceQuery: String) {
        self.sequenceQuery = sequenceQuery
    }

    /// How many records `entities` hold together, from the table; `nil` when the counts are
    /// stale (their stamp is not the store's sequence) or lack one of the entities: the caller
    /// then counts the rows.
    func count<Connection: SQLConnection>(of entities: [String], on connection: Connection, dialect: any SQLDialect) throws -> Int? {
        let names = (1...entities.count).map { dialect.placeholder($0) }.joined(separator: ", ")
        let sql = "SELECT CAST(coalesce(sum(records) FILTER (WHERE entity IN (\(names))), 0) AS BIGINT), count(*) FILTER (WHERE entity IN (\(names))), "
            + "coalesce(max(records) FILTER (WHERE entity = \(Self.stampName.sqlLiteral)), -1), (\(sequenceQuery)) FROM \(Self.table.sqlIdentifier)"
        var total: Int64 = 0, found: Int64 = 0, stamp: Int64 = -1, sequence: Int64?
        try connection.statement(sql).query(entities.map(SQLValue.text)) { row in
            total = row.int64(0)
            found = row.int64(1)
            stamp = row.int64(2)
            sequence = row.integer(3)
        }
        guard found == Int64(entities.count), let sequence, stamp == sequence, total >= 0 else { return nil }
        return Int(total)
    }

    /// Whether the table's stamp is the store's sequence (one statement, one snapshot); `false`
    /// when it has no stamp. The table must exist.
    package func isCurrent<Connection: SQLConnection>(on connection: Connection) throws -> Bool {
        var current = false
        try connection.statement("SELECT CASE WHEN (SELECT records FROM \(Self.table.sqlIdentifier) WHERE entity = \(Self.stampName.sqlLiteral)) = (\(sequenceQuery)) THEN 1 ELSE 0 END")
            .query([]) { current = $0.int64(0) == 1 }
        return current
    }

    /// The sequence the counts were last brought to; `nil` when the table has no stamp.
    package static func stamp<Connection: SQLConnection>(on connection: Connection, dialect: any SQLDialect) throws -> Int64? {
        var stamp: Int64?
        try connection.statement("SELECT records FROM \(table.sqlIdentifier) WHERE entity = \(dialect.placeholder(1))")
            .query([.text(stampName)]) { stamp = $0.integer(0) }
        return stamp
    }

    /// Counts the records of every entity of `mapping` from its tables and stamps the counts
    /// with `sequence`, inside the caller's transaction, which must keep commits out (hold the
    /// lock every commit takes first).
    package static func recount<Connection: SQLConnection>(mapping: SQLSchemaMapping, sequence: UInt64, on connection: Connection) throws {
        let counts = table.sqlIdentifier
        try connection.execute("DELETE FROM \(counts)")
        for name in mapping.tableOrder {
            try connection.execute("INSERT INTO \(counts) (entity, records) SELECT \"_entity\", count(*) FROM \(name.sqlIdentifier) GROUP BY \"_entity\"")
        }
        // Entities without records, abstract ones included, count zero.
        let zeros = mapping.schema.entities.map { "(\($0.name.sqlLiteral), 0)" }
        if !zeros.isEmpty {
            try connection.execute("INSERT INTO \(counts) (entity, records) VALUES \(zeros.joined(separator: ", ")) ON CONFLICT (entity) DO NOTHING")
        }
        try connection.execute("INSERT INTO \(counts) (entity, records) VALUES (\(stampName.sqlLiteral), \(Int64(clamping: sequence)))")
    }

    /// The deltas as a JSON object, entity name → delta, for a commit's statement to add;
    /// entities whose delta is zero are left out.
    package static func json(_ deltas: RecordCountDeltas) throws -> String {
        var object: [String: Int] = [:]
        deltas.forEach { entity, delta in
            if delta != 0 { object[entity, default: 0] += delta }
        }
        if object.isEmpty { return "{}" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        do {
            return String(decoding: try encoder.encode(object), as: UTF8.self)
        } catch {
            throw StorageError.invalidRequest("the record counts of a commit could not be encoded (\(error)); nothing was written")
        }
    }
}
