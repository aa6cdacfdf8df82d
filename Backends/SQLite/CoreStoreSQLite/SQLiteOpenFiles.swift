import Foundation

/// The database files this process has open through a `SQLiteStore`.
///
/// A POSIX rule makes closing *any* descriptor of a file release every lock the process holds
/// on it, SQLite's included. So a file one of our stores has open is never opened directly
/// (to read its header, say): only through SQLite, which shares one descriptor per file among
/// its connections.
enum SQLiteOpenFiles {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var counts: [String: Int] = [:]

    static func opened(_ path: String) {
        lock.withLock { counts[key(path), default: 0] += 1 }
    }

    static func closed(_ path: String) {
        lock.withLock {
            let k = key(path)
            if let count = counts[k], count > 1 { counts[k] = count - 1 } else { counts[k] = nil }
        }
    }

    static func isOpen(_ path: String) -> Bool {
        lock.withLock { counts[key(path)] != nil }
    }

    private static func key(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }
}
