import Foundation

/// Sends observer notifications on one serial dispatch queue, in commit order. There is one per
/// queue, shared by every monitor and publisher that delivers there.
///
/// `perform(synchronous:waitForAllObservers: true)` commits inside
/// ``deliveringOnThisThread(_:)``, which does not wake the queues and ends with ``flush()``:
/// from another thread that waits until the queue has delivered everything scheduled so far
/// (on the calling thread itself when the queue is idle, the main queue excepted); on the queue
/// itself it delivers right away instead of waiting for itself (no deadlock).
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

    /// Queues `notification` after everything scheduled before it, and wakes the queue to
    /// deliver it — unless the calling thread delivers it itself right after (see
    /// ``deliveringOnThisThread(_:)``).
    func schedule(_ notification: @escaping () -> Void) {
        lock.withLock { pending.append(notification) }
        if let held = HeldWakeUps.current {
            if !held.deliveries.contains(where: { $0 === self }) { held.deliveries.append(self) }
            return
        }
        queue?.async { [self] in drain() }
    }

    /// Runs `body` (a commit that the caller waits to see delivered), then delivers everything
    /// it scheduled, as ``flush()`` does, before returning.
    ///
    /// Inside `body` the queues are not woken: a queue woken for a notification that the
    /// caller is about to wait for made the queue's thread deliver it while the caller slept,
    /// then wake the caller — two thread switches per commit. Left asleep, the queue is idle
    /// when the caller flushes, so Dispatch runs the delivery on the calling thread.
    static func deliveringOnThisThread<T>(_ body: () throws -> T) rethrows -> T {
        let held = HeldWakeUps()
        let outer = HeldWakeUps.current
        HeldWakeUps.current = held
        defer {
            HeldWakeUps.current = outer
            for delivery in held.deliveries { delivery.flush() }
        }
        return try body()
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

/// The deliveries a thread scheduled on while it promised to flush them itself (see
/// ``ObservationDelivery/deliveringOnThisThread(_:)``); one per thread at a time, reached
/// through a thread-specific slot.
private final class HeldWakeUps {
    var deliveries: [ObservationDelivery] = []

    private static let slot = ThreadSlot<HeldWakeUps>()

    /// The calling thread's promise in progress, if any (see ``ThreadSlot``).
    static var current: HeldWakeUps? {
        get { slot.value }
        set { slot.value = newValue }
    }
}
