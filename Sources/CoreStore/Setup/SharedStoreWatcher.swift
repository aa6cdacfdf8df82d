import Foundation
import CoreStoreStorage

/// Notices commits that other connections make to a stack's shared stores
/// (`SharedAccessStorage`): it asks the stack to check their stored sequences on a timer, and
/// at once when another stack of this process has just committed to the same file.
///
/// Checks run one at a time on the watcher's own queue; a request made while one is pending
/// is folded into it. The watcher holds its stack weakly and stops when the stack goes away.
final class SharedStoreWatcher: @unchecked Sendable {
    /// How often the stored sequences are compared when nothing else asked for a check.
    static let pollingInterval: DispatchTimeInterval = .milliseconds(200)

    private let queue = DispatchQueue(label: "CoreStore.DataStack.sharedStores", qos: .utility)
    private let lock = NSLock()
    private weak var stack: DataStack?
    /// The shared stores followed, held weakly: a check never keeps a stack (or its stores)
    /// alive unless it found a commit to catch up with.
    private var stores: [WeakStore] = []
    private var timer: DispatchSourceTimer?
    private var checkPending = false

    /// The periodic checks read every store's sequence at least this often, whatever its
    /// ``SharedAccessStorage/changeSignature`` says (a commit can leave a file's size and
    /// modification time as they were within the clock's resolution).
    static let fullCheckInterval: TimeInterval = 2

    private final class WeakStore {
        weak var store: AttachedStore?
        /// The store's change signature when its sequence was last read (timer queue only).
        var signature: [Int64]?
        var lastRead = Date.distantPast
        init(_ store: AttachedStore) { self.store = store }
    }

    /// Sets the stack to check (once, from the stack's initializer).
    func follow(_ stack: DataStack) {
        lock.withLock { self.stack = stack }
    }

    deinit {
        timer?.cancel()
    }

    /// Follows `store` and starts polling (once; later calls only add the store).
    func watch(_ store: AttachedStore) {
        lock.withLock {
            stores = stores.filter { $0.store != nil } + [WeakStore(store)]
            guard timer == nil else { return }
            let source = DispatchSource.makeTimerSource(queue: queue)
            source.schedule(deadline: .now() + Self.pollingInterval, repeating: Self.pollingInterval, leeway: .milliseconds(50))
            source.setEventHandler { [weak self] in self?.check(periodic: true) }
            source.resume()
            timer = source
        }
    }

    /// Stops polling.
    func stop() {
        lock.withLock {
            timer?.cancel()
            timer = nil
        }
    }

    /// Asks for a check soon (another stack of this process committed to a shared file).
    func requestCheck() {
        let schedule = lock.withLock {
            defer { checkPending = true }
            return !checkPending
        }
        if schedule { queue.async { [weak self] in self?.check(periodic: false) } }
    }

    /// Runs on the watcher's queue. A periodic check skips the stores whose files show no
    /// change since their sequence was last read.
    private func check(periodic: Bool) {
        let watched = lock.withLock {
            checkPending = false
            stores = stores.filter { $0.store != nil }
            return stores
        }
        do {
            // The stored sequences first, without the stack: most checks find nothing new.
            var moved = false
            let now = Date()
            for entry in watched {
                guard let store = entry.store, let shared = store.storage as? any SharedAccessStorage else { continue }
                let signature = shared.changeSignature
                if periodic, let signature, signature == entry.signature, now.timeIntervalSince(entry.lastRead) < Self.fullCheckInterval { continue }
                entry.signature = signature
                entry.lastRead = now
                if try shared.storedCommitSequence() != store.lastSequence { moved = true }
            }
            guard moved, let stack = lock.withLock({ self.stack }) else { return }
            _ = try stack.refreshFromSharedStores()
        } catch StorageError.notOpen {
            // The stack is going away (or removed its stores): nothing to follow.
        } catch CoreStoreError.storageFailure(.notOpen) {
        } catch {
            _ = Log.error(CoreStoreError.wrap(error), "Checking the shared stores of a DataStack for other connections' commits failed; the next check tries again.")
        }
    }
}

/// The stacks of this process that have a shared store open, by the store's shared identity:
/// a commit to one tells the others right away.
enum SharedStoreRegistry {
    private final class WeakStack {
        weak var stack: DataStack?
        init(_ stack: DataStack) { self.stack = stack }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var stacks: [String: [WeakStack]] = [:]

    static func register(_ stack: DataStack, for identity: String) {
        lock.withLock {
            var list = (stacks[identity] ?? []).filter { $0.stack != nil && $0.stack !== stack }
            list.append(WeakStack(stack))
            stacks[identity] = list
        }
    }

    static func unregister(_ stack: DataStack) {
        lock.withLock {
            for (identity, list) in stacks {
                let remaining = list.filter { $0.stack != nil && $0.stack !== stack }
                stacks[identity] = remaining.isEmpty ? nil : remaining
            }
        }
    }

    /// The other stacks of this process that have the store `identity` open.
    static func others(of stack: DataStack, sharing identity: String) -> [DataStack] {
        lock.withLock { (stacks[identity] ?? []).compactMap(\.stack).filter { $0 !== stack } }
    }
}
