import Foundation
import Synchronization

/// The recursive lock of an ``ObjectContext``: code running under it may take it again on the
/// same thread.
///
/// A transaction takes its context's lock for every property it sets and every object it
/// inserts, nearly always on the one thread that runs it and with nobody waiting, so the common
/// cases are a few instructions: taking the lock again is one atomic load and a counter; taking
/// it first, and giving it up, one atomic operation each on ``state``. Foundation's
/// `NSRecursiveLock` costs about four times as many instructions per lock and unlock.
///
/// A thread that finds the lock taken spins briefly, then sleeps on a condition variable; the
/// holder that gives up the lock wakes one sleeper when ``sleepers`` says there is one. Taking
/// and giving up the lock are sequentially consistent, so a holder giving it up either sees a
/// sleeper that counted itself (and wakes it) or the sleeper then finds the lock free. The
/// ordering between holders is made by ``state``'s atomic operations, which ThreadSanitizer
/// sees (it does not see that of a `Mutex` from the Synchronization module).
final class ContextLock: @unchecked Sendable {
    /// `0` free, `1` taken.
    private let state = Atomic<Int>(0)
    /// The identity of the holding thread, `0` when the lock is free. Read by any thread, but
    /// equal to a thread's own identity only while that thread holds the lock.
    private let owner = Atomic<UInt>(0)
    /// How many times the holder took the lock; touched only by the holder.
    @exclusivity(unchecked) private var depth = 0
    /// The threads asleep (or about to sleep) until the lock is given up.
    private let sleepers = Atomic<Int>(0)
    /// Guards the sleep and the wake-up of ``wakeUp``.
    private let sleepMutex: UnsafeMutablePointer<pthread_mutex_t>
    private let wakeUp: UnsafeMutablePointer<pthread_cond_t>

    /// How many times a waiter checks the lock before it sleeps.
    private static let spins = 64

    /// Where ``wakeUp`` lies in the one block that holds it after ``sleepMutex``.
    private static let wakeUpOffset = (MemoryLayout<pthread_mutex_t>.stride + MemoryLayout<pthread_cond_t>.alignment - 1)
        / MemoryLayout<pthread_cond_t>.alignment * MemoryLayout<pthread_cond_t>.alignment

    init() {
        // One allocation for both (a context is made per transaction).
        let block = UnsafeMutableRawPointer.allocate(
            byteCount: Self.wakeUpOffset + MemoryLayout<pthread_cond_t>.stride,
            alignment: max(MemoryLayout<pthread_mutex_t>.alignment, MemoryLayout<pthread_cond_t>.alignment)
        )
        sleepMutex = block.initializeMemory(as: pthread_mutex_t.self, repeating: pthread_mutex_t(), count: 1)
        pthread_mutex_init(sleepMutex, nil)
        wakeUp = (block + Self.wakeUpOffset).initializeMemory(as: pthread_cond_t.self, repeating: pthread_cond_t(), count: 1)
        pthread_cond_init(wakeUp, nil)
    }

    deinit {
        pthread_cond_destroy(wakeUp)
        wakeUp.deinitialize(count: 1)
        pthread_mutex_destroy(sleepMutex)
        sleepMutex.deinitialize(count: 1)
        UnsafeMutableRawPointer(sleepMutex).deallocate()
    }

    /// The calling thread's identity (never `0`).
    @inline(__always)
    private static var currentThread: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }

    /// Takes the lock, waiting while another thread holds it.
    @inline(__always)
    func lock() {
        let me = Self.currentThread
        if owner.load(ordering: .relaxed) == me {
            depth += 1
            return
        }
        if !state.compareExchange(expected: 0, desired: 1, ordering: .sequentiallyConsistent).exchanged {
            waitForLock()
        }
        owner.store(me, ordering: .relaxed)
        depth = 1
    }

    /// Gives up one hold of the lock; the last one frees it and wakes a sleeper, if any.
    @inline(__always)
    func unlock() {
        depth -= 1
        guard depth == 0 else { return }
        owner.store(0, ordering: .relaxed)
        state.store(0, ordering: .sequentiallyConsistent)
        if sleepers.load(ordering: .sequentiallyConsistent) > 0 { wakeOneSleeper() }
    }

    /// Runs `body` with the lock held.
    @inline(__always)
    func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// ``withLock(_:)`` (the name the rest of the package uses where the error is typed).
    @inline(__always)
    func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        try withLock(body)
    }

    /// Takes the lock from another thread: a few checks, then sleeps until woken.
    @inline(never)
    private func waitForLock() {
        for _ in 0..<Self.spins {
            if state.load(ordering: .relaxed) == 0,
               state.compareExchange(expected: 0, desired: 1, ordering: .sequentiallyConsistent).exchanged {
                return
            }
            sched_yield()
        }
        pthread_mutex_lock(sleepMutex)
        sleepers.wrappingAdd(1, ordering: .sequentiallyConsistent)
        while !state.compareExchange(expected: 0, desired: 1, ordering: .sequentiallyConsistent).exchanged {
            pthread_cond_wait(wakeUp, sleepMutex)
        }
        sleepers.wrappingSubtract(1, ordering: .sequentiallyConsistent)
        pthread_mutex_unlock(sleepMutex)
    }

    /// Wakes one thread asleep in ``waitForLock()``.
    @inline(never)
    private func wakeOneSleeper() {
        pthread_mutex_lock(sleepMutex)
        pthread_cond_signal(wakeUp)
        pthread_mutex_unlock(sleepMutex)
    }
}
