import Foundation
import CoreStoreStorage

/// Several `DataStack`s — in this process or in others — may add the same database file: SQLite
/// serializes their writes (each commit reads and advances the key and sequence counters inside
/// its `IMMEDIATE` transaction, so identifiers never collide), and each stack notices the
/// others' commits through the commit sequence (in WAL mode kept in the counters file every
/// connection maps, see `SQLiteCounterFile`).
extension SQLiteStore: SharedAccessStorage {
    /// The database file's canonical path.
    public var sharedIdentity: String { canonicalPath }

    /// The sequence of the last commit: in WAL mode, read from the counters file every
    /// connection maps (`SQLiteCounterFile`); otherwise (and for a store opened for reading, which
    /// may open before any writer made that file) the one stored in the database, read on a
    /// pooled reader.
    public func storedCommitSequence() throws -> UInt64 {
        if let counterFile { return counterFile.committedSequence }
        let stored = try withReadConnection { try SQLiteMetadata.counters($0).sequence }
        guard let counterFile = SQLiteCounterFile.openForReading(databasePath: fileURL.path) else { return stored }
        return max(stored, counterFile.committedSequence)
    }

    /// The sizes and modification times of the database file and its write-ahead log: every
    /// commit changes one of them. Read with `stat`, which opens nothing (opening a file that
    /// SQLite locks and closing it again would release SQLite's locks).
    public var changeSignature: [Int64]? {
        var signature: [Int64] = []
        signature.reserveCapacity(9)
        // A commit that writes no page (an empty change set) still moves the sequence.
        if let counterFile { signature.append(Int64(bitPattern: counterFile.committedSequence)) }
        for path in signaturePaths {
            var info = stat()
            if stat(path, &info) == 0 {
                signature += [Int64(info.st_size), Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec), Int64(info.st_ino)]
            } else {
                signature += [-1, 0, 0, 0]
            }
        }
        return signature
    }

    /// The byte of the `-shm` file on which every connection in WAL mode holds a shared lock
    /// while the database is open (SQLite's "DMS" lock): how the store tools see that another
    /// process has the store open.
    public static let sharedMemoryOpenLockOffset = 128
}
