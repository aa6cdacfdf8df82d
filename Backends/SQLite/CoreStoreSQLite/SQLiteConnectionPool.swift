import Foundation
import CoreStoreStorage

/// Read connections handed to one thread at a time; opens up to `maximum` of them, then makes
/// further readers wait for one to come back.
final class SQLiteConnectionPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var idle: [SQLiteConnection] = []
    private var opened = 0
    private var isClosed = false
    private let maximum: Int
    private let open: () throws -> SQLiteConnection

    init(maximum: Int, open: @escaping () throws -> SQLiteConnection) {
        self.maximum = maximum
        self.open = open
    }

    /// Runs `body` with a connection no other thread uses meanwhile.
    func withConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let connection = try checkOut()
        defer { checkIn(connection) }
        return try body(connection)
    }

    /// Drops every idle connection; connections in use are closed when they come back.
    func close() {
        condition.withLock {
            isClosed = true
            idle.removeAll()
            condition.broadcast()
        }
    }

    private func checkOut() throws -> SQLiteConnection {
        condition.lock()
        while idle.isEmpty && opened >= maximum && !isClosed { condition.wait() }
        // A reader that got the pool just before the store closed opens nothing new: a
        // connection opened then would outlive the store and hold the file.
        if isClosed {
            condition.unlock()
            throw StorageError.notOpen(store: "a closed SQLite store")
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

    private func checkIn(_ connection: SQLiteConnection) {
        condition.withLock {
            if isClosed {
                opened -= 1
            } else {
                idle.append(connection)
            }
            condition.signal()
        }
    }
}
