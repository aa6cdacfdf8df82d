import Foundation
import CoreStoreStorage

/// Admits an engine's transactions and shuts them out when the engine requires that none be
/// active: LMDB while its map is resized (`mdb_env_set_mapsize`), LevelDB and LMDB while the
/// store closes (every snapshot and iterator must be released first).
///
/// Any number of ``shared(_:)`` bodies run at once; an ``exclusive(_:)`` body waits for them to
/// finish and keeps new ones waiting until it returns. A thread must not ask for exclusive access
/// while it runs a shared body (it would wait for itself).
public final class KeyValueTransactionGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var active = 0
    private var exclusiveHeld = false
    private var closed = false
    private let storeDescription: String

    /// A gate whose refusals name `storeDescription`.
    public init(storeDescription: String) {
        self.storeDescription = storeDescription
    }

    /// Runs `body` as one of many concurrent transactions. Throws `notOpen` once ``close()`` began.
    public func shared<T>(_ body: () throws -> T) throws -> T {
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
    public func exclusive<T>(_ body: () throws -> T) throws -> T {
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

    /// Refuses new bodies and waits for the running ones; afterwards the engine may close.
    /// Returns `false` when the gate was already closed.
    @discardableResult
    public func close() -> Bool {
        condition.lock()
        while exclusiveHeld { condition.wait() }
        let wasOpen = !closed
        closed = true
        condition.broadcast()
        while active > 0 { condition.wait() }
        condition.unlock()
        return wasOpen
    }
}
