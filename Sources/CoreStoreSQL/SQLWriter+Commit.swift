import CoreStoreStorage

extension SQLWriter {
    /// One commit's work inside the caller's write transaction: the counters read through
    /// `counters`, the change set checked against the stored records and given permanent
    /// identifiers, its rows written, and the new counters and metadata handed to `store`.
    package static func commit(
        _ changes: ChangeSet, on connection: Connection, mapping: SQLSchemaMapping,
        counters: () throws -> CommitCounters, store: (CommitCounters, StoredMetadata?) throws -> Void
    ) throws -> CommitInfo {
        try SQLWriter(connection: connection, mapping: mapping).commit(changes, counters: counters, store: store)
    }

    /// ``commit(_:on:mapping:counters:store:)`` with this writer's connection and mapping. A
    /// store whose writer connection stays open keeps one writer for all its commits, so the
    /// statements each entity's rows need are prepared and found once, not once per commit.
    package func commit(
        _ changes: ChangeSet, counters: () throws -> CommitCounters, store: (CommitCounters, StoredMetadata?) throws -> Void
    ) throws -> CommitInfo {
        // The reader is made only when the merge loads stored records (updates and deletes):
        // making it copies the mapping, which a commit of inserts alone does not need.
        let prepared = try changes.prepareCommit(schema: mapping.schema, counters: try counters(), acceptsUnreadDeletes: true) { [self] ids in
            try SQLReader(connection: connection, mapping: mapping).records(ids)
        }
        try apply(prepared.changes)
        try store(prepared.counters, prepared.metadata)
        return prepared.info
    }
}
