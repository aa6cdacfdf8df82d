import Foundation
import CoreStoreStorage

/// Notices commits that other connections make to a stack's shared stores
/// (`SharedAccessStorage`): it asks the stack to check their stored sequences on a timer, and
/// at once when another stack of this process has just committed to the same store or the
/// store heard of a commit.
///
/// Checks run one at a time on the watcher's own queue; a request made while one is pending
/// is folded into it. The watcher holds its stack weakly and stops when the stack goes away.
///
/// It holds the stores it follows strongly, until the stack removes them (``unwatch(_:)``) or
/// stops it: a weak reference would give every `AttachedStore` a side table, which makes each
/// retain and release of it — one per object made or freed, one per identifier fetched — take
/// the runtime's slow path.
final class SharedStoreWatcher: @unchecked Sendable {
    /// How often the stores' files are looked at when nothing else asked for a check.
    static let pollingInterval: DispatchTimeInterval = .milliseconds(200)

    /// The periodic checks read every store's sequence at least this often, whatever its
    /// ``SharedAccessStorage/changeSignature`` says (a commit can leave a file's size and
    /// modification time as they were within the clock's resolution).
    static let fullCheckInterval: TimeInterval = 2

    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()
    private let queue = DispatchQueue(label: "CoreStore.DataStack.sharedStores", qos: .utility)
    /// Guards everything below; `busy` changes are broadcast.
    private let condition = NSCondition()
    private weak var stack: DataStack?
    /// The shared stores followed (the stack holds them too; they are let go with it).
    private var stores: [WatchedStore] = []
    private var timer: DispatchSourceTimer?
    private var checkPending = false
    private var stopped = false
    /// A check is running: ``stop()`` waits for it, so that no read of a store outlives the
    /// stack that closes it.
    private var busy = false
    /// Commits of the stack under way: a stored sequence ahead of the stack's may be its own.
    private var ownCommits = 0
    /// Counts the starts and ends of the stack's commits, so that a check can tell whether one
    /// ran while it read the sequences.
    private var ownCommitEvents = 0

    private final class WatchedStore {
        let store: AttachedStore
        /// The store's change signature when its sequence was last read or committed.
        var signature: [Int64]?
        var lastRead = Date.distantPast
        init(_ store: AttachedStore) { self.store = store }
    }

    init() {
        queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self))
    }

    /// Sets the stack to check (once, from the stack's initializer).
    func follow(_ stack: DataStack) {
        condition.withLock { self.stack = stack }
    }

    deinit {
        timer?.cancel()
    }

    /// Follows `store` and starts polling (once; later calls only add the store).
    func watch(_ store: AttachedStore) {
        let shared = store.sharedStorage
        let signature = shared?.changeSignature
        // A store that hears of commits (a database notification) asks for a check at once.
        shared?.onForeignCommit { [weak self] in self?.requestCheck() }
        condition.withLock {
            guard !stopped else { return }
            let entry = WatchedStore(store)
            entry.signature = signature
            entry.lastRead = Date()
            stores.append(entry)
            guard timer == nil else { return }
            let source = DispatchSource.makeTimerSource(queue: queue)
            source.schedule(deadline: .now() + Self.pollingInterval, repeating: Self.pollingInterval, leeway: .milliseconds(50))
            source.setEventHandler { [weak self] in self?.check(periodic: true) }
            source.resume()
            timer = source
        }
    }

    /// Runs one of the stack's commits: while it runs, a stored sequence ahead of the stack's
    /// is not taken for another connection's commit (the commit itself notices those).
    func duringOwnCommit<T>(_ body: () throws(CoreStoreError) -> T) throws(CoreStoreError) -> T {
        condition.withLock { ownCommits += 1; ownCommitEvents += 1 }
        defer { condition.withLock { ownCommits -= 1; ownCommitEvents += 1 } }
        return try body()
    }

    /// Notes that the stack's own commit changed the files of `store`: the next periodic check
    /// reads its sequence once (one small query) and takes the files' signature then. Looking
    /// at the files here instead cost every commit two `stat` calls.
    func noteOwnCommit(to store: AttachedStore) {
        guard store.sharedStorage != nil else { return }
        condition.withLock {
            guard let entry = stores.first(where: { $0.store === store }) else { return }
            entry.signature = nil
        }
    }

    /// Stops following `removed` (the stack removed them). A check under way may still read
    /// them once: a closed store answers that it is not open, which the check ignores.
    func unwatch(_ removed: [AttachedStore]) {
        for store in removed { store.sharedStorage?.onForeignCommit(nil) }
        condition.withLock {
            stores.removeAll { entry in removed.contains { $0 === entry.store } }
        }
    }

    /// Stops polling, lets go of the stores and waits for a check under way (unless called
    /// from one).
    func stop() {
        let watched = condition.withLock { stores.map(\.store) }
        for store in watched { store.sharedStorage?.onForeignCommit(nil) }
        condition.lock()
        stopped = true
        stores.removeAll()
        timer?.cancel()
        timer = nil
        if DispatchQueue.getSpecific(key: Self.queueKey) != ObjectIdentifier(self) {
            while busy { condition.wait() }
        }
        condition.unlock()
    }

    /// Asks for a check soon (another stack of this process committed to a shared file).
    func requestCheck() {
        let schedule = condition.withLock {
            defer { checkPending = true }
            return !checkPending && !stopped
        }
        if schedule { queue.async { [weak self] in self?.check(periodic: false) } }
    }

    /// Runs on the watcher's queue. A periodic check skips the stores whose files show no
    /// change since their sequence was last read (or the stack last committed to them).
    private func check(periodic: Bool) {
        let snapshot: (stores: [WatchedStore], events: Int)? = condition.withLock {
            checkPending = false
            guard !stopped else { return nil }
            busy = true
            return (stores, ownCommitEvents)
        }
        guard let (watched, events) = snapshot else { return }
        defer {
            condition.withLock {
                busy = false
                condition.broadcast()
            }
        }
        do {
            // The stored sequences first, without the stack: most checks find nothing new.
            var moved = false
            let now = Date()
            for entry in watched {
                let store = entry.store
                guard let shared = store.sharedStorage else { continue }
                let signature = shared.changeSignature
                let skip = condition.withLock { () -> Bool in
                    if periodic, let signature, signature == entry.signature, now.timeIntervalSince(entry.lastRead) < Self.fullCheckInterval { return true }
                    entry.signature = signature
                    entry.lastRead = now
                    return false
                }
                if skip { continue }
                if try shared.storedCommitSequence() != store.lastSequence { moved = true }
            }
            // A commit of the stack under way explains a sequence ahead; it checks for others
            // itself when it ends.
            guard moved, condition.withLock({ ownCommits == 0 && ownCommitEvents == events }), let stack = condition.withLock({ self.stack }) else { return }
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
///
/// It keeps each stack's watcher (which holds its stack weakly) and the stack's identity,
/// never the stack itself, and it never reads a weak reference to a stack. Reading one makes a
/// strong reference, and a strong reference to a stack that another thread is releasing can
/// end up its last: the stack's `deinit` — which closes its stores, and on SQLite checkpoints
/// the log into the database file — would then run later, on this thread. An application that
/// released a stack and then copied, moved or reopened its file could find it still being
/// written to (a test did, while another test's stack unregistered on another thread).
///
/// One strong reference of that kind remains, inherent to catching up: a watcher's check that
/// found another connection's commit holds its stack while the stack reads that commit, so a
/// stack released exactly then closes its stores when the check ends, on the watcher's queue.
enum SharedStoreRegistry {
    private struct Entry {
        /// The stack's identity: valid while it is registered, since a stack unregisters in its
        /// `deinit`, before its memory can be reused.
        let stack: ObjectIdentifier
        let watcher: SharedStoreWatcher
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var entries: [String: [Entry]] = [:]
    /// How many identities have more than one stack registered: while none has, a commit
    /// learns that nobody is to be told without looking its store's identity up.
    nonisolated(unsafe) private static var sharedIdentityCount = 0

    static func register(_ stack: DataStack, for identity: String) {
        let entry = Entry(stack: ObjectIdentifier(stack), watcher: stack.sharedStoreWatcher)
        lock.withLock {
            var list = entries[identity] ?? []
            if !list.contains(where: { $0.stack == entry.stack }) { list.append(entry) }
            entries[identity] = list
            countSharedIdentities()
        }
    }

    /// Forgets the stack (from its `deinit`, which stops its watcher; the stack still holds the
    /// watcher, so letting go of it here frees nothing under the lock).
    static func unregister(_ stack: DataStack) {
        let identifier = ObjectIdentifier(stack)
        lock.withLock {
            for (identity, list) in entries where list.contains(where: { $0.stack == identifier }) {
                let remaining = list.filter { $0.stack != identifier }
                entries[identity] = remaining.isEmpty ? nil : remaining
            }
            countSharedIdentities()
        }
    }

    /// Recounts ``sharedIdentityCount``; called with the lock held.
    private static func countSharedIdentities() {
        sharedIdentityCount = entries.values.reduce(0) { $0 + ($1.count > 1 ? 1 : 0) }
    }

    /// The watchers of the other stacks of this process that have the store `identity` open.
    static func otherWatchers(of stack: DataStack, sharing identity: String) -> [SharedStoreWatcher] {
        let identifier = ObjectIdentifier(stack)
        return lock.withLock {
            // Usually the stack is alone with its file: nothing to build.
            guard sharedIdentityCount > 0, let list = entries[identity], list.count > 1 else { return [] }
            return list.filter { $0.stack != identifier }.map(\.watcher)
        }
    }
}
