import Foundation

/// The store files and directories open in this process, by resolved path.
///
/// LMDB's and LevelDB's locks are `fcntl` locks, which belong to the process: a second handle
/// on the same store in one process would not be stopped by them, and closing it would release
/// the first handle's lock. An engine registers its path here before it opens (or repairs) a
/// store and removes it once closed.
public final class OpenStorePaths: @unchecked Sendable {
    /// The one registry of the process.
    public static let shared = OpenStorePaths()
    private let lock = NSLock()
    private var paths: Set<String> = []

    /// Adds `path`; `false` when it is already open.
    public func insert(_ path: String) -> Bool {
        lock.withLock { paths.insert(path).inserted }
    }

    /// Removes `path`.
    public func remove(_ path: String) {
        lock.withLock { _ = paths.remove(path) }
    }
}
