/// The contract between the user API (`DataStack`) and a storage engine.
///
/// Users pick a store (`InMemoryStore`, `SQLiteStore`, …) and hand it to a `DataStack`; they
/// never call these requirements themselves. This page is the guide for engine authors.
///
/// ## Lifecycle
/// `open(schema:)` → any number of `read` and `write` calls → `close()`. A `DataStack` opens a
/// store once and is its only writer: **the caller serializes** `open`, `write`, `erase` and
/// `close` (never two at once), while `read` may run on any thread at any time. So a store needs
/// no write lock of its own — only the locks its engine's C library requires. Keep the open state
/// in a ``StoreLifecycle``: it answers every call on a closed store with the one
/// ``StorageError/notOpen(store:)`` error.
///
/// ## Implementation requirements
/// 1. **Opening.** `open(schema:)` on a *new* store initializes it for the schema and returns
///    `nil`. On an existing store it returns the ``StoredMetadata`` found there. When that
///    metadata's `schemaHash` differs from `schema.schemaHash` the store's data must not be
///    modified (engines that rewrite bookkeeping files on every open, like LevelDB, may do so): the
///    caller then either calls ``erase()`` and `open` again, or ``close()``. Opening a store that is
///    already open returns its metadata without changing anything. A file or directory
///    that is not this kind of store, or is damaged, throws ``StorageError/incompatibleStore(path:reason:)``
///    and is left untouched.
/// 2. **Reads see one snapshot.** Everything inside one ``read(_:)`` call sees the same committed
///    state, whatever commits meanwhile. With ``StorageCapabilities/concurrentReaders`` reads may
///    run on any thread at once and alongside a write.
/// 3. **Writes are atomic and merge property by property.** ``write(_:)`` applies the whole
///    ``ChangeSet`` or nothing. Inside its write transaction a store calls
///    ``ChangeSet/prepareCommit(schema:counters:acceptsUnreadDeletes:load:)`` with its stored
///    ``CommitCounters`` and a look-up of stored records: that assigns permanent identifiers (keys are never reused),
///    merges every update with the stored record — only the changed keys are written, to-many
///    changes as additions and removals, inverses kept consistent (see ``ChangeMerger``) —
///    validates every record against the schema, and returns the merged records to write, the
///    counters to store with them and the ``CommitInfo`` to return (whose
///    ``CommitInfo/changes`` carries the merged records and a sequence number that grows with
///    every commit). A change set that changes no record (``ChangeSet/isEmpty``,
///    possibly carrying metadata) is a commit too: it returns no permanent identifiers and a
///    higher sequence, and changes nothing else. A failing write (unknown record, uniqueness violation,
///    full disk) throws a ``StorageError`` and leaves the store as it was. With
///    ``StorageCapabilities/durableCommits`` a returned write survives a crash.
/// 4. **Uniqueness.** Each of an entity's `uniqueConstraints` must hold across the entity and
///    its sub-entities after every write; a violation throws
///    ``StorageError/uniqueConstraintViolation(entity:attributes:values:)``. `nil` values never
///    collide.
/// 5. **Fetching.** ``StorageReader/fetch(_:)`` returns records of the entity (and its
///    sub-entities when asked). A backend may push down all, part or none of the request and
///    reports the rest in ``FetchResult/pending``; what it does apply must match
///    ``PredicateEvaluator`` and ``RecordSorter`` exactly (ties and unsorted fetches are in record
///    key order).
/// 6. **Aggregating.** ``StorageReader/aggregate(_:schema:)`` returns the rows
///    ``AggregateEvaluator`` returns. Its default implementation fetches the selected records and
///    runs the evaluator, so a backend only implements it to push aggregates down.
/// 7. **Errors, not crashes.** Every failure is a thrown ``StorageError``; using a closed store
///    throws ``StorageError/notOpen(store:)``.
///
/// The `CoreStoreConformance` suite is the executable form of these requirements.
public protocol StorageInterface: AnyObject, Sendable {
    /// The configuration whose entities this store holds; `nil` holds every entity.
    var configuration: String? { get }

    /// What this engine promises.
    var capabilities: StorageCapabilities { get }

    /// A short name for logs and errors, such as `"InMemoryStore"` or a file path.
    var storeDescription: String { get }

    /// Opens the store for `schema`; returns the stored metadata, or `nil` for a new store.
    func open(schema: StoreSchema) throws -> StoredMetadata?

    /// Runs `body` on one consistent snapshot of the committed data.
    func read<T>(_ body: (any StorageReader) throws -> T) throws -> T

    /// Applies `changes` atomically (and durably where the engine is durable).
    func write(_ changes: ChangeSet) throws -> CommitInfo

    /// Removes every record and the stored metadata and leaves the store closed; the next
    /// ``open(schema:)`` initializes it as a new store.
    func erase() throws

    /// Releases the store's resources; later calls throw ``StorageError/notOpen(store:)``.
    func close()
}

/// Read access to one snapshot, valid only inside ``StorageInterface/read(_:)``.
public protocol StorageReader {
    /// The records with these identifiers, `nil` where a record does not exist; in input order.
    func records(_ ids: [RecordID]) throws -> [Record?]

    /// The records a request selects (see requirement 5 of ``StorageInterface``).
    func fetch(_ request: FetchRequest) throws -> FetchResult

    /// The number of records a request selects, ignoring its sort keys.
    func count(_ request: FetchRequest) throws -> Int

    /// The identifiers of the records a request selects, in its order and window: exactly the
    /// identifiers of ``fetch(_:)`` completed with ``FetchResult/completed(for:schema:)``.
    /// `schema` is the schema the store was opened with. Its default fetches the records; a
    /// backend implements it to read no more than the identifiers where it can (an index that
    /// answers the predicate, a select of the key columns).
    func recordIDs(_ request: FetchRequest, schema: StoreSchema) throws -> [RecordID]

    /// The identifiers ``recordIDs(_:schema:)`` returns, each once, in any order: what a bulk
    /// delete reads, which needs the set and not the sequence. A request with a window (`limit`
    /// or `offset`) still selects the window of its order. Its default is
    /// ``recordIDs(_:schema:)``; a backend implements it to skip ranking the identifiers (no
    /// `ORDER BY`, no sort of index entries by record key).
    func unorderedRecordIDs(_ request: FetchRequest, schema: StoreSchema) throws -> [RecordID]

    /// The rows of an aggregate request, one column per term, exactly as ``AggregateEvaluator``
    /// computes them (see requirement 6 of ``StorageInterface``). `schema` is the schema the
    /// store was opened with.
    func aggregate(_ request: AggregateRequest, schema: StoreSchema) throws -> [[Value]]

    /// At most `limit` records whose concrete entity is `entity` (not its sub-entities) and
    /// whose key is greater than `key`, in key order: one page of a scan that reads a whole
    /// entity in bounded memory (tools, migrations), resumed after the last key it returned.
    /// Its default fetches the entity and drops what it does not need, so a backend implements
    /// it to read only the page.
    func records(of entity: String, after key: Int64, limit: Int) throws -> [Record]
}

extension StorageReader {
    /// Answers with the reference semantics: fetches the records the request selects (filtered
    /// by the backend as far as it can, completed by the core's evaluator), then runs
    /// ``AggregateEvaluator``. A backend overrides this only to compute aggregates natively.
    public func aggregate(_ request: AggregateRequest, schema: StoreSchema) throws -> [[Value]] {
        try aggregateByFetching(request, schema: schema)
    }

    /// Answers from a fetch: correct on any backend, but it reads whole records.
    public func recordIDs(_ request: FetchRequest, schema: StoreSchema) throws -> [RecordID] {
        try fetch(request).completed(for: request, schema: schema).map(\.id)
    }

    /// Answers in the request's order: correct on any backend, but ranks what a caller of this
    /// method does not need ranked.
    public func unorderedRecordIDs(_ request: FetchRequest, schema: StoreSchema) throws -> [RecordID] {
        try recordIDs(request, schema: schema)
    }

    /// Answers from a fetch of the whole entity: correct on any backend, but not bounded by
    /// `limit`.
    public func records(of entity: String, after key: Int64, limit: Int) throws -> [Record] {
        let request = FetchRequest(entity: entity, includesSubentities: false)
        let result = try fetch(request)
        var records = result.records
        if result.pending.contains(.sort) { records.sort { $0.id.key < $1.id.key } }
        return Array(records.lazy.filter { $0.id.entity == entity && $0.id.key > key }.prefix(max(0, limit)))
    }

    /// The default answer to ``aggregate(_:schema:)``, for backends that push down only some
    /// requests and fall back to this for the others.
    public func aggregateByFetching(_ request: AggregateRequest, schema: StoreSchema) throws -> [[Value]] {
        let evaluator = AggregateEvaluator(schema: schema)
        try evaluator.validate(request)
        let fetchRequest = FetchRequest(entity: request.entity, includesSubentities: request.includesSubentities, predicate: request.predicate)
        let records = try fetch(fetchRequest).completed(for: fetchRequest, schema: schema)
        return try evaluator.rows(request, records: records)
    }
}
