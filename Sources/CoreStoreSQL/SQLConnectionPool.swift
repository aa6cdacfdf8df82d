import Foundation
import CoreStoreStorage

/// Connections handed to one thread at a time; opens up to `maximum` of them, then makes
/// further users wait for one to come back.
package final class SQLConnectionPool<Connection: AnyObject>: @unchecked Sendable {
    private let condition = NSCondition()
    private var idle: [Connection] = []
    private var opened = 0
    private var isClosed = false
    private let maximum: Int
    private let storeDescription: String
    private let open: () throws -> Connection
    private let isReusable: (Connection) -> Bool

    /// A pool of at most `maximum` connections made by `open`, for the store `storeDescription`
    /// (named when the store is closed). A connection that comes back and is not `isReusable`
    /// (its server went away, say) is dropped.
    package init(maximum: Int, storeDescription: String, isReusable: @escaping (Connection) -> Bool = { _ in true },
                 open: @escaping () throws -> Connection) {
        self.maximum = maximum
        self.storeDescription = storeDescription
        self.isReusable = isReusable
        self.open = open
    }

    /// Runs `body` with a connection no other thread uses meanwhile.
    package func withConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        let connection = try checkOut()
        defer { checkIn(connection) }
        return try body(connection)
    }

    /// Drops every idle connection; connections in use are closed when they come back.
    package func close() {
        condition.withLock {
            isClosed = true
            idle.removeAll()
            condition.broadcast()
        }
    }

    private func checkOut() throws -> Connection {
        condition.lock()
        while idle.isEmpty && opened >= maximum && !isClosed { condition.wait() }
        // A reader that got the pool just before the store closed opens nothing new: a
        // connection opened then would outlive the store and hold the file.
        if isClosed {
            condition.unlock()
            throw StorageError.notOpen(store: storeDescription)
        }
        if let connection = idle.popLast() {
            condition.unlock()
            return connection
        }
        opened += 1
        condition.unlock()
        do {
            return try open()
        } catch {
            condition.withLock {
                opened -= 1
                condition.signal()
            }
            throw error
        }
    }

    private func checkIn(_ connection: Connection) {
        let reusable = isReusable(connection)
        condition.withLock {
            if isClosed || !reusable {
                opened -= 1
            } else {
                idle.append(connection)
            }
            condition.signal()
        }
    }
}
