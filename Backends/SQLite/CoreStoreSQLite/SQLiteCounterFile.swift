import Foundation
import CSQLite
import CoreStoreStorage

/// The commit counters of a database in WAL mode — the next record key and the commit
/// sequence — in a small file beside it (`<database>-counters`) that every process with the
/// database open maps into memory, instead of a row of the database that every commit would
/// rewrite (one more page in the log per commit).
///
/// Three 64-bit words after a format marker: the next key, the *pending* sequence and the
/// *committed* one. Every write to them happens inside SQLite's write lock, which serializes
/// the writers of every process:
/// - a commit starts from the committed sequence, first raised to the pending one (a writer
///   that set the pending sequence and stopped before publishing it may have committed);
/// - just before `COMMIT` it sets the pending sequence and the next key; after `COMMIT` it
///   raises the committed sequence (never lowering it: the next writer may have published a
///   later one already); if `COMMIT` fails it puts both back;
/// - readers read the committed sequence (a stack reading it before a snapshot is never ahead
///   of the data it then reads).
///
/// The words only ever grow, and a store that opens the database raises them to what the
/// database itself shows (inside the write lock): the next key to past the largest key of
/// every table and the key the database stored, the sequence to the one it stored. So a file
/// that is missing, new, or older than the database (a power cut can lose pages the kernel had
/// not written back) starts right, and one that is ahead only makes keys skip a few numbers.
/// The database stores the counters when a store closes, and the next key in every commit that
/// deletes records (so that the largest key deleted is never given again, even if this file
/// is lost).
final class SQLiteCounterFile: @unchecked Sendable {
    /// The suffix of the file's name after the database's.
    static let suffix = "-counters"
    /// The size of the file and of its mapping.
    private static let size = 4096
    /// The first word: `CSCOUNT1`, little-endian.
    private static let marker: UInt64 = 0x3154_4e55_4f43_5343

    /// The file's path.
    let path: String
    private let descriptor: Int32
    private let words: UnsafeMutablePointer<UInt64>

    private var nextKeyWord: UnsafeMutablePointer<UInt64> { words + 1 }
    private var pendingWord: UnsafeMutablePointer<UInt64> { words + 2 }
    private var committedWord: UnsafeMutablePointer<UInt64> { words + 3 }

    private init(path: String, descriptor: Int32, words: UnsafeMutablePointer<UInt64>) {
        self.path = path
        self.descriptor = descriptor
        self.words = words
    }

    deinit {
        munmap(UnsafeMutableRawPointer(words), Self.size)
        Foundation.close(descriptor)
    }

    /// The path of the counters file of the database at `databasePath`.
    static func path(ofDatabase databasePath: String) -> String { databasePath + suffix }

    /// Maps the counters file of the database at `databasePath`, creating it (with the
    /// database file's permissions) when it is missing. Throws when it cannot be made or mapped,
    /// or when the file is not a counters file.
    static func openForWriting(databasePath: String) throws -> SQLiteCounterFile {
        let path = path(ofDatabase: databasePath)
        var database = stat()
        let mode = stat(databasePath, &database) == 0 ? database.st_mode & 0o777 : 0o600
        let descriptor = Foundation.open(path, O_RDWR | O_CREAT | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw failure("cannot open \(path)") }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            Foundation.close(descriptor)
            throw failure("cannot read the size of \(path)")
        }
        // Another process may be making the file right now: extending it to its size is the
        // same for both (a mapping past the end of a file faults on access). A new file takes
        // the database's permissions exactly, whatever the umask (as SQLite's side files do).
        if info.st_size < Self.size {
            if info.st_size == 0 { _ = fchmod(descriptor, mode) }
            guard ftruncate(descriptor, off_t(Self.size)) == 0 else {
                Foundation.close(descriptor)
                throw failure("cannot extend \(path)")
            }
        }
        let file = try map(path: path, descriptor: descriptor, protection: PROT_READ | PROT_WRITE)
        if !corestore_counter_replace(file.words, 0, marker), corestore_counter_load(file.words) != marker {
            throw StorageError.incompatibleStore(path: path, reason: "it is not a CoreStore counters file (delete it while no process has the database open; the counters are rebuilt from the database)")
        }
        return file
    }

    /// Maps the counters file of the database at `databasePath` for reading, `nil` when there
    /// is none yet (or it is still being made).
    static func openForReading(databasePath: String) -> SQLiteCounterFile? {
        let path = path(ofDatabase: databasePath)
        let descriptor = Foundation.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_size >= Self.size,
              let file = try? map(path: path, descriptor: descriptor, protection: PROT_READ) else {
            Foundation.close(descriptor)
            return nil
        }
        return corestore_counter_load(file.words) == marker ? file : nil
    }

    private static func map(path: String, descriptor: Int32, protection: Int32) throws -> SQLiteCounterFile {
        let address = mmap(nil, size, protection, MAP_SHARED, descriptor, 0)
        guard let address, address != MAP_FAILED else {
            Foundation.close(descriptor)
            throw failure("cannot map \(path) into memory", advice: "on a file system without shared memory, open the store with journalMode: .rollback")
        }
        return SQLiteCounterFile(path: path, descriptor: descriptor, words: address.assumingMemoryBound(to: UInt64.self))
    }

    private static func failure(_ message: String, advice: String? = nil) -> StorageError {
        let code = errno
        return StorageError.engine(code: Int(SQLITE_CANTOPEN), message: "\(message): \(String(cString: strerror(code)))" + (advice.map { "; " + $0 } ?? ""))
    }

    // MARK: Reading

    /// The sequence of the last commit published.
    var committedSequence: UInt64 { corestore_counter_load(committedWord) }

    /// The next key and the committed sequence.
    var counters: CommitCounters {
        CommitCounters(nextKey: Int64(bitPattern: corestore_counter_load(nextKeyWord)), sequence: committedSequence)
    }

    // MARK: Writing (inside SQLite's write lock)

    /// Raises the counters to at least `counters` (what the database shows).
    func raise(to counters: CommitCounters) {
        corestore_counter_raise(nextKeyWord, UInt64(max(counters.nextKey, 1)))
        corestore_counter_raise(pendingWord, counters.sequence)
        corestore_counter_raise(committedWord, counters.sequence)
    }

    /// The counters a commit starts from. A pending sequence above the committed one is a
    /// commit whose writer stopped before publishing it: it is published now.
    func countersForCommit() -> CommitCounters {
        let pending = corestore_counter_load(pendingWord)
        corestore_counter_raise(committedWord, pending)
        return counters
    }

    /// Sets the next key and the pending sequence of a commit about to end.
    func willCommit(_ counters: CommitCounters) {
        corestore_counter_raise(nextKeyWord, UInt64(counters.nextKey))
        corestore_counter_raise(pendingWord, counters.sequence)
    }

    /// Publishes the sequence of a commit that ended.
    func didCommit(_ counters: CommitCounters) {
        corestore_counter_raise(committedWord, counters.sequence)
    }

    /// Puts back what ``willCommit(_:)`` set for a commit that failed (unless a later
    /// writer moved them on).
    func commitFailed(_ counters: CommitCounters, startedFrom before: CommitCounters) {
        _ = corestore_counter_replace(pendingWord, counters.sequence, before.sequence)
        _ = corestore_counter_replace(nextKeyWord, UInt64(counters.nextKey), UInt64(before.nextKey))
    }
}
