import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Which other process holds a POSIX record lock on a file — how engines that lock their files
/// while a store is open (SQLite in WAL mode, LMDB, LevelDB) show that another process has the
/// store open. Asks with `fcntl(F_GETLK)`, which takes no lock and never reports this
/// process's own locks.
public enum FileLockProbe {
    /// The process, other than this one, holding a lock on bytes `start..<start+length` of the
    /// file at `path` (`length` 0: to the end); `nil` when none does or the file cannot be opened.
    ///
    /// Closing the probe's descriptor releases every lock this process holds on the file (a
    /// POSIX rule): call it only on files this process does not lock, or before it opens them.
    public static func processHoldingLock(on path: String, start: Int, length: Int) -> pid_t? {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { Glibc.close(descriptor) }
        return processHoldingLock(onOpenFile: descriptor, start: start, length: length)
    }

    /// The same question about a file this process already has open as `descriptor` (no
    /// descriptor is closed, so this process's own locks stay).
    public static func processHoldingLock(onOpenFile descriptor: Int32, start: Int, length: Int) -> pid_t? {
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(start)
        lock.l_len = off_t(length)
        guard fcntl(descriptor, F_GETLK, &lock) == 0, lock.l_type != Int16(F_UNLCK) else { return nil }
        return lock.l_pid
    }
}
