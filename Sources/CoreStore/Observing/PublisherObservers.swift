import Foundation

/// The observers of a publisher: each held weakly, with its callback. Thread-safe.
final class PublisherObservers<Publisher>: @unchecked Sendable {
    private struct Entry {
        weak var owner: AnyObject?
        let callback: (Publisher, Any?) -> Void
    }

    private let lock = NSLock()
    private var entries: [Entry] = []

    /// Adds `owner`'s callback, replacing one it added before.
    func add(_ owner: AnyObject, _ callback: @escaping (Publisher, Any?) -> Void) {
        lock.withLock {
            entries.removeAll { $0.owner == nil || $0.owner === owner }
            entries.append(Entry(owner: owner, callback: callback))
        }
    }

    /// Removes `owner`'s callback.
    func remove(_ owner: AnyObject) {
        lock.withLock { entries.removeAll { $0.owner == nil || $0.owner === owner } }
    }

    /// Calls the callbacks of the owners still alive, with the change's `sourceIdentifier`.
    func notify(_ publisher: Publisher, sourceIdentifier: Any?) {
        let callbacks = lock.withLock { entries.filter { $0.owner != nil }.map(\.callback) }
        for callback in callbacks { callback(publisher, sourceIdentifier) }
    }
}
