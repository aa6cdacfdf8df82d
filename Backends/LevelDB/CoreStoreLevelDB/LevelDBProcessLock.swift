import Foundation
import CoreStoreStorage
#if canImport(Glibc)
import Glibc
#endif

/// The `fcntl` write lock on a database's `LOCK` file, the lock `leveldb_open` takes: held while
/// the files are repaired or put back, so that no other process opens the database meanwhile.
/// Closing the descriptor releases it (and every lock this process holds on that file, so
/// ``OpenStorePaths`` must first rule out another handle in this process).
struct LevelDBProcessLock {
    private let descriptor: Int32

    /// Takes the lock of the database in `directory`; `nil` when another process holds it.
    init?(directory: URL) throws {
        let path = directory.appendingPathComponent("LOCK").path
        let descriptor = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, mode_t(PrivateFiles.filePermissions))
        guard descriptor >= 0 else {
            throw StorageError.engine(code: Int(errno), message: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        var request = flock()
        request.l_type = Int16(F_WRLCK)
        request.l_whence = Int16(SEEK_SET)
        guard fcntl(descriptor, F_SETLK, &request) == 0 else {
            _ = Glibc.close(descriptor)
            return nil
        }
        self.descriptor = descriptor
    }

    /// Releases the lock.
    func release() {
        _ = Glibc.close(descriptor)
    }
}
