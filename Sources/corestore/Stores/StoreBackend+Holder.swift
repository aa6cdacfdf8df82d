import CoreStoreSQLite
import CoreStoreStorage
import Foundation

/// Another process that has a store open, seen through the file locks its engine holds for as
/// long as a store is open: LMDB a shared lock on byte 0 of `lock.mdb`, LevelDB a lock on `LOCK`,
/// SQLite in WAL mode a shared lock on its `-shm` file's "DMS" byte (offset 128). The tools
/// refuse to change a store another process has open (its objects, monitors and cached key
/// counters would not know of the change, and a replaced LMDB file would take its later
/// commits with it), and LevelDB, which one process opens at a time, gets a clear error.
extension StoreBackend {
    /// Whether another process may write records into the store while an app has it open: a
    /// SQLite file is shared by every `DataStack` on it, and each notices the others' commits.
    var sharesOpenStores: Bool { self == .sqlite }

    /// The process, other than this one, that holds the store at `url` open; `nil` when none
    /// does or its engine shows none (SQLite with a rollback journal between transactions).
    /// Call it before this process opens the store: closing the probe's descriptor releases
    /// this process's own locks on the file.
    func processHoldingStore(at url: URL) -> pid_t? {
        let (file, start, length): (URL, Int, Int) = switch self {
        case .lmdb: (url.appendingPathComponent("lock.mdb"), 0, 1)
        case .leveldb: (url.appendingPathComponent("LOCK"), 0, 0)
        case .sqlite: (URL(fileURLWithPath: url.path + "-shm"), SQLiteStore.sharedMemoryOpenLockOffset, 1)
        }
        return FileLockProbe.processHoldingLock(on: file.path, start: start, length: length)
    }

    /// Throws when another process has the store at `url` open, saying which and what to do.
    func refuseIfOpenElsewhere(_ url: URL, toolAction: String) throws {
        guard let pid = processHoldingStore(at: url) else { return }
        let name = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        let holder = "process \(pid)" + (name.map { " (\($0))" } ?? "")
        let why = self == .leveldb
            ? "a LevelDB store is opened by one process at a time"
            : "a change made beside it would not reach its objects and monitors"
        throw StoreToolError("\(url.path) is open in \(holder): \(why); stop it before you \(toolAction)")
    }
}
