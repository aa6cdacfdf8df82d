import Foundation

/// Sends observer notifications on one serial dispatch queue, in commit order. There is one per
/// queue, shared by every monitor and publisher that delivers there.
///
/// `perform(synchronous:waitForAllObservers: true)` calls ``flush()``: from another thread it
/// waits until the queue has delivered everything scheduled so far; on the queue itself it
/// delivers right away instead of waiting for itself (no deadlock).
final class ObservationDelivery: @unchecked Sendable {
    private static let key = DispatchSpecificKey<ObservationDelivery>()
    private static let registryLock = NSLock()

    /// The delivery for `queue`, which must be serial (the main queue by default).
    static func on(_ queue: DispatchQueue) -> ObservationDelivery {
        registryLock.withLock {
            if let existing = queue.getSpecific(key: key) { return existing }
            let delivery = ObservationDelivery(queue: queue)
            queue.setSpecific(key: key, value: delivery)
            // `DispatchQueue.main` may be a new wrapper each time: compare what the queues hold.
            delivery.isMainQueue = DispatchQueue.main.getSpecific(key: key) === delivery
            return delivery
        }
    }

    /// Weak: the queue keeps its delivery (as a queue-specific value), and every monitor that
    /// uses the delivery keeps the queue.
    private weak var queue: DispatchQueue?
    /// Set once, under the registry lock, before the delivery is handed out.
    private(set) var isMainQueue = false
    private let lock = NSLock()
    private var pending: [() -> Void] = []
    /// Touched on the queue only.
    private var drainDepth = 0

    private init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// Whether the caller runs on this delivery's queue.
    var isCurrent: Bool {
        if isMainQueue && Thread.isMainThread { return true }
        return DispatchQueue.getSpecific(key: Self.key) === self
    }

    /// Queues `notification` after everything scheduled before it.
    func schedule(_ notification: @escaping () -> Void) {
        lock.withLock { pending.append(notification) }
        queue?.async { [self] in drain() }
    }

    /// Returns once every notification scheduled so far has been delivered. On the queue itself
    /// they are delivered now; from inside a notification they stay queued and follow it.
    ///
    /// From another thread the waiting is a `sync` on the queue that delivers what is pending:
    /// while the queue is idle, Dispatch runs it on the calling thread (still exclusive on the
    /// queue), so the notifications go out without waking the queue's thread and waiting for
    /// it; the drain scheduled for them then finds nothing left.
    func flush() {
        if isCurrent {
            if drainDepth == 0 { drain() }
            return
        }
        queue?.sync { drain() }
    }

    private func drain() {
        drainDepth += 1
        defer { drainDepth -= 1 }
        while let next = lock.withLock({ pending.isEmpty ? nil : pending.removeFirst() }) {
            next()
        }
    }
}
