import Foundation
import CLevelDB
import CoreStoreKeyValue
import CoreStoreStorage

/// One open `leveldb_t`. Reads and writes enter through ``withOperation(_:)``; ``close()``
/// waits for them, since LevelDB requires every iterator and snapshot to be released before
/// `leveldb_close`.
final class LevelDBDatabase: @unchecked Sendable {
    let handle: OpaquePointer
    /// Write options with `sync` set as the engine's durability asks.
    let writeOptions: OpaquePointer
    private let gate: KeyValueTransactionGate

    init(handle: OpaquePointer, sync: Bool, storeDescription: String) {
        self.handle = handle
        self.gate = KeyValueTransactionGate(storeDescription: storeDescription)
        writeOptions = leveldb_writeoptions_create()
        leveldb_writeoptions_set_sync(writeOptions, sync ? 1 : 0)
    }

    /// Runs `body` with read options bound to a new snapshot; releases both afterwards. Throws
    /// `notOpen` once ``close()`` began.
    func withSnapshot<T>(_ body: (LevelDBSnapshotReader) throws -> T) throws -> T {
        try gate.shared { try readSnapshot(body) }
    }

    private func readSnapshot<T>(_ body: (LevelDBSnapshotReader) throws -> T) throws -> T {
        let snapshot = leveldb_create_snapshot(handle)
        let options = leveldb_readoptions_create()
        leveldb_readoptions_set_verify_checksums(options, 1)
        leveldb_readoptions_set_snapshot(options, snapshot)
        defer {
            leveldb_readoptions_destroy(options)
            leveldb_release_snapshot(handle, snapshot)
        }
        guard let options else { throw StorageError.engine(code: 0, message: "leveldb_readoptions_create failed") }
        return try body(LevelDBSnapshotReader(database: handle, options: options))
    }

    /// Refuses new operations, waits for the running ones and closes the database. Idempotent.
    func close() {
        guard gate.close() else { return }
        leveldb_close(handle)
        leveldb_writeoptions_destroy(writeOptions)
    }

    deinit {
        close()
    }
}
