import Foundation
import CoreStoreStorage

/// Admits transactions into an open environment and shuts them out when LMDB requires that
/// none be active: while the map is resized (`mdb_env_set_mapsize`) and while the environment
/// closes.
///
/// Any number of ``shared(_:)`` bodies run at once; an ``exclusive(_:)`` body waits for them to
/// finish and keeps new ones waiting until it returns. A thread must not ask for exclusive access
/// while it runs a shared body (it would wait for itself).
final class LMDBTransactionGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var active = 0
    private var exclusiveHeld = false
    private var closed = false
    private let storeDescription: String

    init(storeDescription: String) {
        self.storeDescription = storeDescription
    }

    /// Runs `body` as one of many concurrent transactions. Throws `notOpen` once ``close()`` began.
    func shared<T>(_ body: () throws -> T) throws -> T {
        condition.lock()
        while exclusiveHeld && !closed { condition.wait() }
        guard !closed else {
            condition.unlock()
            throw StorageError.notOpen(store: storeDescription)
        }
        active += 1
        condition.unlock()
        defer {
            condition.lock()
            active -= 1
            if active == 0 { condition.broadcast() }
            condition.unlock()
        }
        return try body()
    }

    /// Runs `body` while no shared body runs. Throws `notOpen` once ``close()`` began.
    func exclusive<T>(_ body: () throws -> T) throws -> T {
        condition.lock()
        while exclusiveHeld && !closed { condition.wait() }
        guard !closed else {
            condition.unlock()
            throw StorageError.notOpen(store: storeDescription)
        }
        exclusiveHeld = true
        while active > 0 { condition.wait() }
        condition.unlock()
        defer {
            condition.lock()
            exclusiveHeld = false
            condition.broadcast()
            condition.unlock()
        }
        return try body()
    }

    /// Refuses new bodies and waits for the running ones; afterwards the environment may close.
    func close() {
        condition.lock()
        while exclusiveHeld { condition.wait() }
        closed = true
        condition.broadcast()
        while active > 0 { condition.wait() }
        condition.unlock()
    }
}
