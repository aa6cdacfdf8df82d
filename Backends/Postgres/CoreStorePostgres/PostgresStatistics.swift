import CoreStoreSQL
import CoreStoreStorage

/// Keeps the query planner's statistics of the store's tables in step with commits that fill
/// or empty them.
///
/// PostgreSQL plans every query from the statistics `ANALYZE` gathers, and autovacuum gathers
/// them again only after a while (a minute by default). Until then a table a commit has just
/// filled is planned as the empty table it was: a `fetchOne` on an indexed attribute (`WHERE
/// id = $1 ORDER BY _key LIMIT 1`) then walks the `_key` index row by row rather than look the
/// value up in its index — measured on 100,000 rows: 7.2 ms against 0.045 ms once analyzed.
/// So after a commit that inserted or deleted at least ``minimumChangedRows`` rows of a table,
/// and at least half as many as the statistics last counted in it, the store vacuums and
/// analyzes that table right away, on the connection that committed (`VACUUM (ANALYZE)`: the
/// vacuum marks the pages all-visible, so that a read of keys by an indexed attribute is
/// answered from the index alone, see `PostgresDialect.indexKeyInclusion`). A bulk load into a
/// new table is refreshed once; the ordinary stream of small commits is left to autovacuum.
///
/// A migration analyzes every table it filled when it commits (``analyze(_:schemaName:on:)``).
///
/// The refresh comes after the commit and cannot undo it: when it fails (the connection broke,
/// another session is analyzing the table), the commit stands and the statistics wait for
/// autovacuum, as they would without it.
enum PostgresStatistics {
    /// Below this many inserted and deleted rows, a commit never analyzes a table.
    static let minimumChangedRows = 1_000

    /// How many rows `changes` inserted or deleted in each table of `mapping` (entity tables
    /// only: join tables are planned through their primary key).
    static func changedRows(_ changes: MergedChanges, mapping: SQLSchemaMapping) -> [String: Int] {
        var counts: [String: Int] = [:]
        // Changes come in runs of one entity: each run is counted here and added to its table's
        // total once, not hashed into the dictionary record by record.
        var lastEntity = "", lastTable: String?, run = 0
        func flush() {
            if let lastTable, run > 0 { counts[lastTable, default: 0] += run }
            run = 0
        }
        func count(_ entity: String) {
            if entity != lastEntity {
                flush()
                lastEntity = entity
                lastTable = try? mapping.entity(entity).table
            }
            run += 1
        }
        for record in changes.inserts { count(record.id.entity) }
        for record in changes.deletes { count(record.id.entity) }
        for id in changes.unreadDeletes { count(id.entity) }
        flush()
        return counts
    }

    /// Vacuums and analyzes each table whose row count `changes` moved by at least
    /// ``minimumChangedRows`` rows and half the rows its statistics count (see the type's
    /// description), outside any transaction; throws what the server or the connection reports.
    static func refresh(after changes: MergedChanges, mapping: SQLSchemaMapping, schemaName: String, on connection: PostgresConnection) throws {
        // Every commit passes here: most are far too small to count per table.
        let total = changes.inserts.count + changes.deletes.count + changes.unreadDeletes.count
        guard total >= minimumChangedRows else { return }
        for (table, changed) in changedRows(changes, mapping: mapping).sorted(by: { $0.key < $1.key }) where changed >= minimumChangedRows {
            let qualified = schemaName.sqlIdentifier + "." + table.sqlIdentifier
            // -1 for a table never analyzed or vacuumed.
            var counted: Int64 = -1
            try connection.statement("SELECT reltuples::bigint FROM pg_class WHERE oid = to_regclass($1)").query([.text(qualified)]) { row in
                counted = row.int64(0)
            }
            guard counted < 0 || Int64(changed) * 2 >= counted else { continue }
            // A table another session is vacuuming or altering is left to it.
            try connection.execute("VACUUM (ANALYZE, SKIP_LOCKED) " + qualified)
        }
    }

    /// Analyzes `tables` of the schema: what a migration does for the tables it filled, which
    /// have no statistics at all. Tables another session is analyzing or altering are left to
    /// it (`SKIP_LOCKED`).
    static func analyze(_ tables: [String], schemaName: String, on connection: PostgresConnection) throws {
        guard !tables.isEmpty else { return }
        let qualified = tables.map { schemaName.sqlIdentifier + "." + $0.sqlIdentifier }
        try connection.execute("ANALYZE (SKIP_LOCKED) " + qualified.joined(separator: ", "))
    }
}
