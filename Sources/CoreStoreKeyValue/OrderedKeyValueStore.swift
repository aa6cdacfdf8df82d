import CoreStoreStorage

/// A sorted map of byte strings: the whole contract a key-value engine (LMDB, LevelDB, RocksDB,
/// FoundationDB, …) implements to become a complete CoreStore store through
/// ``KeyValueStorage``.
///
/// Keys compare as unsigned bytes, lexicographically (`memcmp`, shorter first on a tie), which is
/// the default order of every engine named above. ``KeyValueStorage`` lays records and indexes
/// out in that order; the engine knows nothing about records.
///
/// ## Implementation requirements
/// 1. **Opening.** ``open()`` creates the store when it does not exist and opens it otherwise. A
///    file or directory that is not this engine's store, or is damaged, throws
///    `StorageError/incompatibleStore(path:reason:)` and is left as it was. A store locked by
///    another process or open handle throws a `StorageError` that says so.
/// 2. **Snapshots.** Everything inside one ``read(_:)`` sees the same committed state, whatever
///    commits meanwhile, and reads may run on any thread, concurrently with each other and with
///    a write.
/// 3. **Atomic writes.** ``write(_:)`` applies every `put` and `delete` of its body at once, or —
///    when the body or the engine throws — none of them. Inside the body, reads see the body's
///    own writes.
/// 4. **One caller at a time for writes and the lifecycle.** ``KeyValueStorage`` (driven by
///    `DataStack`'s serial transaction queue) calls ``write(_:)``, ``open()``, ``close()`` and
///    ``destroy()`` one at a time, never overlapping. So the engine needs no write lock of its
///    own: its snapshot at the start of a write is still the latest committed state when the
///    write commits. Take a lock only where the engine's library requires one (LMDB serializes
///    its write transactions; LevelDB applies a `WriteBatch` atomically). Reads run at any
///    time, on any thread, concurrently with all of these; ``close()`` waits for them.
/// 5. **Durability.** When the engine promises durable commits, a returned ``write(_:)`` survives
///    a crash.
/// 6. **Errors.** Every failure is a thrown `StorageError` (`.engine` with the engine's own
///    message and code, `.incompatibleStore`, `.notOpen` after ``close()``); never a crash.
///
/// The `CoreStoreConformance` suite, run on a ``KeyValueStorage`` over the engine, is the
/// executable form of these requirements.
///
/// ## What the tier gives engine authors
/// - ``DirectoryEngineShell`` with a ``DirectoryStoreFormat``: requirement 1 and the lifecycle
///   (open, `notOpen` after close, close waiting for reads, destroy) for an engine that keeps
///   its store in a directory; the engine adds its own calls and file-signature check.
/// - ``BufferedKeyValueWriter``: requirement 3's read-your-writes for an engine whose native
///   batch cannot read (LevelDB, RocksDB, an append log).
/// - ``SortedKeyMap``: a sorted in-memory map that is also a snapshot ``KeyValueReader``, for
///   an engine that holds its committed pairs in memory.
/// - ``KeyValueTransactionGate``: shutting transactions out while the engine resizes or closes.
public protocol OrderedKeyValueStore: AnyObject, Sendable {
    /// A short name for logs and errors, such as the engine and its path.
    var storeDescription: String { get }

    /// Whether a returned write survives a crash of the process or the machine.
    var isDurable: Bool { get }

    /// Opens (creating if needed) the store.
    func open() throws

    /// Opens the store, then runs `check` (the caller's first reads, such as its metadata)
    /// before the open counts. When `check` throws, the engine closes and, where it can, leaves
    /// its files as they were before this open (LevelDB's open recovers its log and writes a
    /// new manifest, which a damaged store should not keep), then rethrows. Optional: the
    /// default opens, runs `check` and closes when it throws.
    func open(confirmingWith check: () throws -> Void) throws

    /// ``open(confirmingWith:)`` for a store that must already exist: when there is none, throws
    /// `StorageError/incompatibleStore(path:reason:)` and creates nothing (no file, no
    /// directory), as ``KeyValueStorage/openForReading(schema:)`` promises. Optional: the
    /// default is ``open(confirmingWith:)``, right for an engine that keeps nothing outside
    /// memory (an empty store then holds no metadata, which the caller refuses).
    func openExisting(confirmingWith check: () throws -> Void) throws

    /// Runs `body` on one consistent snapshot of the committed data.
    func read<T>(_ body: (any KeyValueReader) throws -> T) throws -> T

    /// Runs `body` in one atomic write; nothing is applied when it throws.
    func write<T>(_ body: (any KeyValueWriter) throws -> T) throws -> T

    /// Releases the store; later calls throw `StorageError/notOpen(store:)`.
    func close()

    /// Closes the store and deletes its files, so that the next ``open()`` creates it afresh.
    func destroy() throws

    /// Deletes, in one atomic write, the first `limit` keys with `lowerBound <= key < upperBound`
    /// (an empty `upperBound`: no bound), and returns how many it deleted and the last one. Used
    /// to reclaim the generation a migration replaced. Optional: the default
    /// (`deleteFirstKeysByScanning`) scans and deletes through ``write(_:)``; an engine whose
    /// writes buffer for read-your-writes can delete straight from an iterator.
    func deleteFirstKeys(from lowerBound: [UInt8], to upperBound: [UInt8], limit: Int) throws -> (count: Int, last: [UInt8]?)
}

extension OrderedKeyValueStore {
    /// ``open()``, then `check`; closes the store when `check` throws.
    public func open(confirmingWith check: () throws -> Void) throws {
        try openThenConfirm(open, with: check)
    }

    /// Runs `open` (one of the engine's ways to open), then `check`; closes the store when
    /// `check` throws. The shape of ``open(confirmingWith:)`` for an engine's own open steps,
    /// such as an ``openExisting(confirmingWith:)`` that must not create the store.
    public func openThenConfirm(_ open: () throws -> Void, with check: () throws -> Void) throws {
        try open()
        do {
            try check()
        } catch {
            close()
            throw error
        }
    }

    /// ``open(confirmingWith:)``: nothing outside memory to create.
    public func openExisting(confirmingWith check: () throws -> Void) throws {
        try open(confirmingWith: check)
    }

    /// Scans and deletes through ``write(_:)``.
    public func deleteFirstKeys(from lowerBound: [UInt8], to upperBound: [UInt8], limit: Int) throws -> (count: Int, last: [UInt8]?) {
        try deleteFirstKeysByScanning(from: lowerBound, to: upperBound, limit: limit)
    }
}

/// Read access to one snapshot, valid only inside ``OrderedKeyValueStore/read(_:)`` or
/// ``OrderedKeyValueStore/write(_:)``.
public protocol KeyValueReader {
    /// The value stored under `key`, or `nil`.
    func get(_ key: [UInt8]) throws -> [UInt8]?

    /// Visits every pair with `lowerBound <= key < upperBound` in ascending key order (descending
    /// when `reverse`), until `visit` returns `false`. An empty `upperBound` means no upper
    /// bound.
    func scan(from lowerBound: [UInt8], to upperBound: [UInt8], reverse: Bool, _ visit: (_ key: [UInt8], _ value: [UInt8]) throws -> Bool) throws

    /// Like an ascending ``scan(from:to:reverse:_:)``, but visits only the values, in place:
    /// each buffer is valid only until `visit` returns. Optional: the default forwards to
    /// `scan`; an engine that can lend its own buffers (LMDB's map, a LevelDB iterator) saves a
    /// copy of every record a fetch reads.
    func scanValues(from lowerBound: [UInt8], to upperBound: [UInt8], _ visit: (_ value: UnsafeRawBufferPointer) throws -> Bool) throws

    /// Like an ascending ``scan(from:to:reverse:_:)``, but visits only the keys, in place: each
    /// buffer is valid only until `visit` returns. Optional, like ``scanValues(from:to:_:)``;
    /// index scans and counts read only keys.
    func scanKeys(from lowerBound: [UInt8], to upperBound: [UInt8], _ visit: (_ key: UnsafeRawBufferPointer) throws -> Bool) throws

    /// Like an ascending ``scan(from:to:reverse:_:)``, but lends each key and value in place:
    /// both buffers are valid only until `visit` returns. Optional, like
    /// ``scanValues(from:to:_:)``; index scans read entries with their checksums this way.
    func scanPairs(from lowerBound: [UInt8], to upperBound: [UInt8], _ visit: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool) throws

    /// Calls `body` with the value stored under `key`, in place (valid only until `body`
    /// returns), and returns `true`; returns `false` without calling it when there is none.
    /// Optional: the default forwards to ``get(_:)``.
    func withValue(_ key: [UInt8], _ body: (_ value: UnsafeRawBufferPointer) throws -> Void) throws -> Bool

    /// Whether this reader itself refuses bytes that changed since the engine stored them, on
    /// every read: LevelDB reading with `verify_checksums` checks each table block's CRC-32C
    /// before it hands out an entry of it (and, opened with `paranoid_checks`, its log's
    /// records at open). The key-value tier then does not check its own per-record and
    /// per-index-entry checksums a second time on what this reader returns; they are still
    /// written, and the integrity check still verifies them. Optional: `false` by default,
    /// which keeps the tier's checks — the right answer for an engine that keeps no checksums
    /// of its own (LMDB) or checks them only sometimes.
    var verifiesStoredBytes: Bool { get }
}

extension KeyValueReader {
    /// Forwards to ``scan(from:to:reverse:_:)`` and lends each value.
    public func scanValues(from lowerBound: [UInt8], to upperBound: [UInt8], _ visit: (_ value: UnsafeRawBufferPointer) throws -> Bool) throws {
        try scan(from: lowerBound, to: upperBound, reverse: false) { _, value in try value.withUnsafeBytes { try visit($0) } }
    }

    /// Forwards to ``scan(from:to:reverse:_:)`` and lends each key.
    public func scanKeys(from lowerBound: [UInt8], to upperBound: [UInt8], _ visit: (_ key: UnsafeRawBufferPointer) throws -> Bool) throws {
        try scan(from: lowerBound, to: upperBound, reverse: false) { key, _ in try key.withUnsafeBytes { try visit($0) } }
    }

    /// Forwards to ``scan(from:to:reverse:_:)`` and lends each key and value.
    public func scanPairs(from lowerBound: [UInt8], to upperBound: [UInt8], _ visit: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool) throws {
        try scan(from: lowerBound, to: upperBound, reverse: false) { key, value in
            try key.withUnsafeBytes { key in try value.withUnsafeBytes { try visit(key, $0) } }
        }
    }

    /// `false`: the key-value tier checks its own checksums.
    public var verifiesStoredBytes: Bool { false }

    /// Forwards to ``get(_:)`` and lends the value.
    public func withValue(_ key: [UInt8], _ body: (_ value: UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        guard let value = try get(key) else { return false }
        try value.withUnsafeBytes { try body($0) }
        return true
    }
}

/// Write access inside ``OrderedKeyValueStore/write(_:)``; reads see the writes made so far.
public protocol KeyValueWriter: KeyValueReader {
    /// Stores `value` under `key`, replacing any previous value.
    func put(_ key: [UInt8], _ value: [UInt8]) throws

    /// Removes `key`; removing a missing key does nothing.
    func delete(_ key: [UInt8]) throws

    /// Stores the bytes of `value` under the bytes of `key`, as ``put(_:_:)`` does, lent in
    /// place: both buffers are valid only for the call. Optional: the default copies them into
    /// arrays for ``put(_:_:)``. A commit builds every key and value in buffers it reuses, so
    /// an engine that copies what it is given anyway (LMDB's `mdb_put`) spares two arrays per
    /// write by taking them here.
    func put(keyBytes key: UnsafeRawBufferPointer, valueBytes value: UnsafeRawBufferPointer) throws

    /// Whether puts in ascending key order cost this writer clearly less than the same puts in
    /// any order: a B-tree that keeps its position between puts, so that a key landing on the
    /// page of the previous one skips the descent from the root (LMDB). A large commit then
    /// writes its index entries one index at a time, each index's entries sorted. Optional: the
    /// default is `false` (a write batch or a log, such as LevelDB's, takes puts in any order
    /// at the same cost, and sorting would only add work).
    var prefersPutsInKeyOrder: Bool { get }
}

extension KeyValueWriter {
    /// Copies the bytes into arrays for ``put(_:_:)``.
    public func put(keyBytes key: UnsafeRawBufferPointer, valueBytes value: UnsafeRawBufferPointer) throws {
        try put(Array(key), Array(value))
    }

    /// `false`: puts are taken as they come.
    public var prefersPutsInKeyOrder: Bool { false }
}
