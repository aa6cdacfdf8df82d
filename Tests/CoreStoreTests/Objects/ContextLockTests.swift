import Foundation
import Testing
@testable import CoreStore

/// The context's lock: recursive on one thread, exclusive across threads, and a thread that
/// had to sleep for it gets it once it is given up.
@Suite("Context lock")
struct ContextLockTests {
    /// A box for a count that only code under the lock touches.
    private final class Counter: @unchecked Sendable {
        var value = 0
    }

    /// Runs `body` on a new thread and waits until it returns.
    private func onAnotherThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            body()
            done.signal()
        }
        done.wait()
    }

    @Test("The holder takes the lock again, in any nesting")
    func recursion() {
        let lock = ContextLock()
        let counter = Counter()
        lock.withLock {
            lock.withLock {
                lock.lock()
                counter.value += 1
                lock.unlock()
            }
            counter.value += 1
        }
        // Free again: another thread takes it.
        onAnotherThread { lock.withLock { counter.value += 10 } }
        #expect(counter.value == 12)
    }

    @Test("Threads taking the lock one after another lose no increment", arguments: [2, 4, 8])
    func mutualExclusion(threads: Int) {
        let lock = ContextLock()
        let counter = Counter()
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for i in 0..<20_000 {
                if i % 3 == 0 {
                    lock.withLock { lock.withLock { counter.value += 1 } }
                } else {
                    lock.withLock { counter.value += 1 }
                }
            }
        }
        #expect(counter.value == threads * 20_000)
    }

    @Test("A thread that finds the lock held for long sleeps and then gets it")
    func sleeperIsWoken() {
        let lock = ContextLock()
        let counter = Counter()
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        finished.enter()
        Thread.detachNewThread {
            lock.withLock {
                holding.signal()
                release.wait()
                counter.value += 1
            }
            finished.leave()
        }
        holding.wait()
        for _ in 0..<3 {
            finished.enter()
            Thread.detachNewThread {
                lock.withLock { counter.value += 1 }
                finished.leave()
            }
        }
        // The waiters spin, then sleep; the holder lets go only after they had time to.
        Thread.sleep(forTimeInterval: 0.2)
        release.signal()
        finished.wait()
        #expect(counter.value == 4)
    }

    @Test("An error thrown under the lock leaves it free")
    func throwingBodyReleases() {
        struct Failure: Error {}
        let lock = ContextLock()
        #expect(throws: Failure.self) { try lock.withLock { () throws(Failure) in throw Failure() } }
        let counter = Counter()
        onAnotherThread { lock.withLock { counter.value += 1 } }
        #expect(counter.value == 1)
    }
}
