import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The lock inside every object that guards its values: one atomic byte, taken for the few
/// instructions it takes to copy or assign a value. Readers on other threads only ever
/// contend with a commit's merge of that very object, so a waiter yields instead of sleeping.
@usableFromInline
struct ValuesLock: ~Copyable {
    @usableFromInline let isHeld = Atomic<Bool>(false)

    @usableFromInline init() {}

    /// Runs `body` with the lock held. `body` must not take this lock again.
    @inlinable @inline(__always)
    borrowing func withLock<T>(_ body: () throws -> T) rethrows -> T {
        while !isHeld.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
            sched_yield()
        }
        defer { isHeld.store(false, ordering: .releasing) }
        return try body()
    }
}
