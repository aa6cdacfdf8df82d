import CoreStoreStorage

extension SQLWriter {
    /// One commit's work inside the caller's write transaction: the counters read through
    /// `counters`, the change set checked against the stored records and given permanent
    /// identifiers, its rows written, and the new counters and metadata handed to `store`.
    package static func commit(
        _ changes: ChangeSet, on connection: Connection, mapping: SQLSchemaMapping,
        counters: () throws -> CommitCounters, store: (CommitCounters, StoredMetadata?) throws -> Void
    ) throws -> CommitInfo {
        let stored = SQLReader(connection: connection, mapping: mapping)
        let prepared = try changes.prepareCommit(schema: mapping.schema, counters: try counters()) { ids in
            try stored.records(ids)
        }
        try SQLWriter(connection: connection, mapping: mapping).apply(prepared.changes)
        try store(prepared.counters, prepared.metadata)
        return prepared.info
    }
}
