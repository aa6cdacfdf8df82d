import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Store files hold people's data, so the stores create them readable by their owner only —
/// whatever the process's umask: a new store directory is `rwx------` (0700) and a new store
/// file `rw-------` (0600). Files and directories that already exist keep their permissions,
/// so an administrator who widens them on purpose is not overruled.
///
/// Backends call these before the engine creates anything: an engine that creates its own
/// files inside an owner-only directory (LevelDB's tables and logs) is protected by the
/// directory; SQLite gives its `-wal` and `-shm` files the database file's permissions.
public enum PrivateFiles {
    /// The permissions of a directory a store creates.
    public static let directoryPermissions: Int = 0o700
    /// The permissions of a file a store creates.
    public static let filePermissions: Int = 0o600

    /// Creates `directory` owner-only when it is missing, with any missing parents (those with
    /// the usual permissions); does nothing when it exists.
    public static func createDirectory(_ directory: URL) throws {
        let fileManager = FileManager.default
        if fileManager.fileExists(atPath: directory.path) { return }
        try fileManager.createDirectory(at: directory.deletingLastPathComponent(), withIntermediateDirectories: true)
        do {
            try fileManager.createDirectory(at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: directoryPermissions])
        } catch where fileManager.fileExists(atPath: directory.path) {
            // Made by someone else meanwhile: theirs to keep.
            return
        }
        // The umask may have narrowed the mode only; make it exactly owner-only.
        try fileManager.setAttributes([.posixPermissions: directoryPermissions], ofItemAtPath: directory.path)
    }

    /// Creates an empty owner-only file at `path` when no file is there; returns whether it
    /// created one. Throws the system's error when it cannot create it.
    @discardableResult
    public static func createFile(atPath path: String) throws -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(filePermissions))
        if descriptor < 0 {
            if errno == EEXIST { return false }
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path, NSLocalizedDescriptionKey: String(cString: strerror(errno))])
        }
        // open() applies the umask, which can only remove bits: set the mode exactly.
        fchmod(descriptor, mode_t(filePermissions))
        close(descriptor)
        return true
    }
}
