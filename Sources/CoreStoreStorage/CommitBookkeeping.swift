/// The two counters every store keeps atomically with its data: the key the next inserted record
/// receives, and the sequence number of the last commit.
public struct CommitCounters: Sendable, Hashable {
    /// The key the next inserted record receives (keys are never reused).
    public var nextKey: Int64
    /// The sequence number of the last commit (0 for a new store).
    public var sequence: UInt64

    /// Counters with these values; a new store starts with `nextKey` 1 and `sequence` 0.
    public init(nextKey: Int64 = 1, sequence: UInt64 = 0) {
        self.nextKey = nextKey
        self.sequence = sequence
    }
}

/// Everything a store does in a write except storing bytes, worked out by
/// ``ChangeSet/prepareCommit(schema:counters:acceptsUnreadDeletes:load:)``: the merged records to write, the counters
/// and metadata to store with them, and what the write returns.
public struct PreparedCommit: Sendable {
    /// The records to write, merged with the stored ones (see ``ChangeMerger``).
    public let changes: MergedChanges
    /// The counters to store in the same atomic write.
    public let counters: CommitCounters
    /// The metadata to store in the same atomic write, when the change set replaces it.
    public let metadata: StoredMetadata?
    /// What ``StorageInterface/write(_:)`` returns once the write succeeded.
    public let info: CommitInfo
}

extension ChangeSet {
    /// The commit bookkeeping every store shares, inside its write: permanent identifiers from
    /// `counters.nextKey`, the property-level merge with the stored records `load` returns
    /// (which also validates every record against `schema`), the next counters and the
    /// ``CommitInfo``. The store then writes ``PreparedCommit/changes``, the counters and the
    /// metadata atomically — or throws, and writes nothing.
    ///
    /// ```swift
    /// let prepared = try changes.prepareCommit(schema: schema, counters: stored) { ids in try lookUp(ids) }
    /// try store(prepared.changes); try store(prepared.counters)
    /// return prepared.info
    /// ```
    ///
    /// A store that also removes ``MergedChanges/unreadDeletes`` passes `acceptsUnreadDeletes`
    /// (see ``ChangeMerger/merge(_:schema:basesAreStored:acceptsUnreadDeletes:load:)``).
    public func prepareCommit(
        schema: StoreSchema, counters: CommitCounters, acceptsUnreadDeletes: Bool = false, load: ChangeMerger.Loader
    ) throws -> PreparedCommit {
        let (resolved, assignment) = assigningPermanentKeys(startingAt: counters.nextKey)
        // Nothing committed since the writer read its bases: they are what is stored.
        let basesAreStored = baseSequence != nil && baseSequence == counters.sequence
        let merged = try ChangeMerger.merge(
            resolved, schema: schema, basesAreStored: basesAreStored, acceptsUnreadDeletes: acceptsUnreadDeletes, load: load
        )
        let next = CommitCounters(nextKey: counters.nextKey + Int64(assignment.count), sequence: counters.sequence + 1)
        return PreparedCommit(
            changes: merged, counters: next, metadata: metadata,
            info: CommitInfo(sequence: next.sequence, assignment: assignment, changes: merged)
        )
    }
}
