import Foundation
import CSQLite
import CoreStoreStorage

/// The commit counters of a database in WAL mode — the next record key and the commit
/// sequence — in a small file beside it (`<database>-counters`) that every process with the
/// database open maps into memory, instead of a row of the database that every commit would
/// rewrite (one more page in the log per commit).
///
/// Three 64-bit words after a format marker: the next key, the *pending* sequence and the
/// *committed* one. Writers are serialized by SQLite's write lock:
/// - a commit starts from the committed sequence, first raised to the pending one (a writer
///   that set it and stopped before publishing may have committed);
/// - just before `COMMIT` it takes a shared lock on a byte of the file (an open-file-description
///   lock, which a process that dies drops), then sets the pending sequence and the next key;
///   after `COMMIT`
///   it raises the committed sequence (never lowering it) and lets the lock go; if `COMMIT`
///   fails it puts both back first;
/// - readers read the committed sequence (a stack reading it before a snapshot is never ahead
///   of the data it then reads). One that finds a pending sequence above it while no writer
///   holds the lock publishes it: its writer committed (or failed) and stopped.
///
/// The words only ever grow, and a store that opens the database raises them to what the
/// database itself shows: the next key to past the largest key of every table and the key the
/// database stored, the sequence to the one it stored. So a file that is missing, new, or older
/// than the database (a power cut can lose pages the kernel had not written back) starts
/// right, and one that is ahead only makes keys skip a few numbers. The database stores the
/// counters when a store closes, and the next key in every commit that deletes records (so that
/// the largest key deleted is never given again, even if this file is lost).
final class SQLiteCounterFile: @unchecked Sendable {
    /// The suffix of the file's name after the database's.
    static let suffix = "-counters"
    /// The size of the file and of its mapping.
    private static let size = 4096
    /// The first word: `CSCOUNT1`, little-endian.
    private static let marker: UInt64 = 0x3154_4e55_4f43_5343
    /// The largest value a word may hold: a file with more is damaged (keys and sequences
    /// would overflow).
    private static let largestValue: UInt64 = 1 << 62
    /// The byte a writer locks from just before its `COMMIT` until it published the commit.
    private static let writerLockOffset = 64

    /// The file's path.
    let path: String
    private let descriptor: Int32
    private let words: UnsafeMutablePointer<UInt64>
    private let isWritable: Bool

    private var nextKeyWord: UnsafeMutablePointer<UInt64> { words + 1 }
    private var pendingWord: UnsafeMutablePointer<UInt64> { words + 2 }
    private var committedWord: UnsafeMutablePointer<UInt64> { words + 3 }

    private init(path: String, descriptor: Int32, words: UnsafeMutablePointer<UInt64>, isWritable: Bool) {
        self.path = path
        self.descriptor = descriptor
        self.words = words
        self.isWritable = isWritable
    }

    deinit {
        munmap(UnsafeMutableRawPointer(words), Self.size)
        Foundation.close(descriptor)
    }

    /// The path of the counters file of the database at `databasePath`: beside the file the
    /// path leads to, as SQLite puts its `-wal` and `-shm` files (every way to the database
    /// must find the same counters).
    static func path(ofDatabase databasePath: String) -> String {
        URL(fileURLWithPath: databasePath).standardizedFileURL.resolvingSymlinksInPath().path + suffix
    }

    /// Maps the counters file of the database at `databasePath`, creating it (with the
    /// database file's permissions) when it is missing. Throws when it cannot be made or mapped,
    /// or when the file is not a counters file (which is then left as it was).
    static func openForWriting(databasePath: String) throws -> SQLiteCounterFile {
        let path = path(ofDatabase: databasePath)
        var database = stat()
        let mode = stat(databasePath, &database) == 0 ? database.st_mode & 0o777 : 0o600
        let descriptor = Foundation.open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, mode)
        guard descriptor >= 0 else { throw failure("cannot open \(path)") }
        do {
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { throw failure("cannot read the size of \(path)") }
            try refuseUnlessCounters(descriptor, size: Int(info.st_size), path: path)
            // A new file takes the database's permissions exactly, whatever the umask (as
            // SQLite's side files do). Its block is allocated now: a write through the mapping
            // to a block the disk has no room for would kill the process instead of failing.
            if info.st_size == 0 { _ = fchmod(descriptor, mode) }
            let allocation = posix_fallocate(descriptor, 0, off_t(Self.size))
            guard allocation == 0 else {
                errno = allocation
                throw failure("cannot allocate \(path)")
            }
            let file = try map(path: path, descriptor: descriptor, protection: PROT_READ | PROT_WRITE)
            // A new (or zeroed) file gets its marker; another process may be doing the same.
            _ = corestore_counter_replace(file.words, 0, marker)
            try file.refuseUnlessPlausible()
            return file
        } catch {
            Foundation.close(descriptor)
            throw error
        }
    }

    /// Maps the counters file of the database at `databasePath` for reading, `nil` when there
    /// is none yet (or it is still being made, or is not one).
    static func openForReading(databasePath: String) -> SQLiteCounterFile? {
        let path = path(ofDatabase: databasePath)
        let descriptor = Foundation.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_size >= Self.size,
              let file = try? map(path: path, descriptor: descriptor, protection: PROT_READ) else {
            Foundation.close(descriptor)
            return nil
        }
        guard corestore_counter_load(file.words) == marker, (try? file.refuseUnlessPlausible()) != nil else { return nil }
        return file
    }

    /// Throws, before anything is written, unless the file (`size` bytes) is empty, a page of
    /// zeros, or starts with the marker.
    private static func refuseUnlessCounters(_ descriptor: Int32, size: Int, path: String) throws {
        guard size > 0 else { return }
        var page = [UInt8](repeating: 0, count: Self.size)
        let read = page.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, Self.size, 0) }
        let marked = read >= 8 && page.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) } == marker
        let zeros = read == size && size <= Self.size && page.allSatisfy { $0 == 0 }
        guard size <= Self.size, marked || zeros else {
            throw StorageError.incompatibleStore(path: path, reason: "it is not a CoreStore counters file (delete it while no process has the database open; the counters are rebuilt from the database)")
        }
    }

    /// Throws when the words hold what no store wrote.
    private func refuseUnlessPlausible() throws {
        let values = [corestore_counter_load(nextKeyWord), corestore_counter_load(pendingWord), corestore_counter_load(committedWord)]
        guard values.allSatisfy({ $0 <= Self.largestValue }) else {
            throw StorageError.incompatibleStore(path: path, reason: "its counters are damaged (\(values.map(String.init).joined(separator: ", "))); delete it while no process has the database open, and the counters are rebuilt from the database")
        }
    }

    /// Maps the file; the caller closes `descriptor` if this throws.
    private static func map(path: String, descriptor: Int32, protection: Int32) throws -> SQLiteCounterFile {
        let address = mmap(nil, size, protection, MAP_SHARED, descriptor, 0)
        guard let address, address != MAP_FAILED else {
            throw failure("cannot map \(path) into memory", advice: "on a file system without shared memory, open the store with journalMode: .rollback")
        }
        return SQLiteCounterFile(path: path, descriptor: descriptor, words: address.assumingMemoryBound(to: UInt64.self), isWritable: protection & PROT_WRITE != 0)
    }

    /// An error for the system call that just failed (call it before any other).
    private static func failure(_ message: String, advice: String? = nil) -> StorageError {
        let reason = String(cString: strerror(errno))
        return StorageError.engine(code: Int(SQLITE_CANTOPEN), message: "\(message): \(reason)" + (advice.map { "; " + $0 } ?? ""))
    }

    // MARK: Reading

    /// The sequence of the last commit published. A pending sequence above it whose writer
    /// holds no lock any more (it committed, or failed, and stopped before publishing) counts
    /// as published, and is published when the file is mapped for writing.
    var committedSequence: UInt64 {
        let committed = corestore_counter_load(committedWord)
        let pending = corestore_counter_load(pendingWord)
        guard pending > committed, !writerIsAtWork() else { return committed }
        if isWritable { corestore_counter_raise(committedWord, pending) }
        return pending
    }

    /// The next key and the committed sequence.
    var counters: CommitCounters {
        CommitCounters(nextKey: Int64(bitPattern: corestore_counter_load(nextKeyWord)), sequence: corestore_counter_load(committedWord))
    }

    /// The next key and the larger of the pending and committed sequences: the counters a
    /// migration or the classic journal must start after.
    var highestCounters: CommitCounters {
        CommitCounters(
            nextKey: Int64(bitPattern: corestore_counter_load(nextKeyWord)),
            sequence: max(corestore_counter_load(committedWord), corestore_counter_load(pendingWord))
        )
    }

    /// Whether a writer holds the lock it takes from just before its `COMMIT` until it published
    /// the commit; asked through a descriptor of its own (a lock of this store's own descriptor
    /// would not show). When it cannot be told, a writer is assumed to be at work.
    private func writerIsAtWork() -> Bool {
        let descriptor = Foundation.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return true }
        defer { Foundation.close(descriptor) }
        return corestore_ofd_is_locked(descriptor, Self.writerLockOffset) != 0
    }

    // MARK: Writing (inside SQLite's write lock)

    /// Raises the counters to at least `counters` (what the database shows).
    func raise(to counters: CommitCounters) {
        corestore_counter_raise(nextKeyWord, UInt64(max(counters.nextKey, 1)))
        corestore_counter_raise(pendingWord, counters.sequence)
        corestore_counter_raise(committedWord, counters.sequence)
    }

    /// Whether the counters are at least `counters`.
    func isAtLeast(_ counters: CommitCounters) -> Bool {
        let current = self.counters
        return current.nextKey >= counters.nextKey && current.sequence >= counters.sequence
    }

    /// The counters a commit starts from. A pending sequence above the committed one is a
    /// commit whose writer stopped before publishing it (SQLite's write lock shows that it
    /// is no longer at work): it is published now.
    func countersForCommit() -> CommitCounters {
        let pending = corestore_counter_load(pendingWord)
        corestore_counter_raise(committedWord, pending)
        return counters
    }

    /// Takes the writer's (shared) lock and sets the next key and the pending sequence of a
    /// commit about to end. Throws (so that the commit is rolled back) when the lock cannot be
    /// taken.
    func willCommit(_ counters: CommitCounters) throws {
        let result = corestore_ofd_share(descriptor, Self.writerLockOffset)
        guard result == 0 else {
            throw StorageError.engine(code: Int(SQLITE_IOERR), message: "cannot lock \(path): \(String(cString: strerror(result)))")
        }
        corestore_counter_raise(nextKeyWord, UInt64(counters.nextKey))
        corestore_counter_raise(pendingWord, counters.sequence)
    }

    /// Publishes the sequence of a commit that ended, and lets the writer's lock go.
    func didCommit(_ counters: CommitCounters) {
        corestore_counter_raise(committedWord, counters.sequence)
        corestore_ofd_unlock(descriptor, Self.writerLockOffset)
    }

    /// Puts back what ``willCommit(_:)`` set for a commit that failed (unless a later writer
    /// moved them on), and lets the writer's lock go.
    func commitFailed(_ counters: CommitCounters, startedFrom before: CommitCounters) {
        _ = corestore_counter_replace(pendingWord, counters.sequence, before.sequence)
        _ = corestore_counter_replace(nextKeyWord, UInt64(counters.nextKey), UInt64(before.nextKey))
        corestore_ofd_unlock(descriptor, Self.writerLockOffset)
    }
}
