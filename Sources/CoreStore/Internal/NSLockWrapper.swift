import Foundation

/// A lock with a closure-based API.
final class NSLockWrapper: @unchecked Sendable {
    private let lock = NSLock()
    func run<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}

extension NSLocking {
    /// Runs `body` with the lock held, preserving a typed error.
    func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
