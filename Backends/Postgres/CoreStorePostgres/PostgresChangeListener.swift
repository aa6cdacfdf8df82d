import Foundation
import CPostgres
import CoreStoreSQL
import CoreStoreStorage

/// Listens on a store's notification channel (`LISTEN`) on a connection of its own, in a thread
/// of its own, and counts what it hears: every commit to the store (by any process) sends one
/// notification when it commits (``PostgresStore`` calls `pg_notify` inside the commit).
///
/// Each one from another connection than the store's own writer is handed to the store's stack
/// at once (`onForeignCommit`), which then catches up; the store's own commits are already known
/// to its stack, so their notifications are dropped (told apart by the sending server process).
/// The count is also the store's `changeSignature`: the stack's periodic check reads the stored
/// commit sequence only when it moved, without a query per poll. When the connection breaks (a server restart, a network
/// gap) the listener reconnects with a growing pause, and counts the reconnection too: commits
/// made while it was away are caught up by the read that follows.
final class PostgresChangeListener: @unchecked Sendable {
    /// The channel of the store `schemaName` (an identifier below PostgreSQL's 63 bytes).
    static func channel(_ schemaName: String) -> String {
        "corestore_" + String(UInt64(bitPattern: PostgresMetadata.lockKey(schemaName)), radix: 16)
    }

    private let lock = NSLock()
    private var heard: Int64 = 0
    private var stopped = false
    private var handler: (@Sendable () -> Void)?
    private let connect: @Sendable () throws -> PostgresConnection
    private let channel: String
    private let isOwnCommit: @Sendable (Int32) -> Bool

    /// Starts listening; `connect` opens a new connection to the store's database, and
    /// `isOwnCommit` tells whether a notification's sending server process is the store's writer.
    init(channel: String, connect: @escaping @Sendable () throws -> PostgresConnection, isOwnCommit: @escaping @Sendable (Int32) -> Bool) {
        self.channel = channel
        self.connect = connect
        self.isOwnCommit = isOwnCommit
        let thread = Thread { [self] in run() }
        thread.name = "CoreStore.PostgresChangeListener"
        thread.start()
    }

    /// How many notifications of other connections' commits, and reconnections, were heard so far.
    var count: Int64 { lock.withLock { heard } }

    /// Stops the thread (within half a second) and closes its connection.
    func stop() {
        lock.withLock { stopped = true }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    /// Sets what to call (on the listener's thread) for everything heard; `nil` for nothing.
    func onHear(_ handler: (@Sendable () -> Void)?) {
        lock.withLock { self.handler = handler }
    }

    private func hear() {
        let handler = lock.withLock { () -> (@Sendable () -> Void)? in
            heard &+= 1
            return self.handler
        }
        handler?()
    }

    private func run() {
        var pause: UInt32 = 100_000
        while !isStopped {
            do {
                let connection = try connect()
                try connection.execute("LISTEN \(channel.sqlIdentifier)")
                // Whatever happened while there was no connection is caught up by a read.
                hear()
                pause = 100_000
                try listen(on: connection)
            } catch {
                // The storage layer has no logger: while there is no connection, the stack's
                // periodic full check (every two seconds) still finds other processes' commits.
                if isStopped { return }
                usleep(pause)
                pause = min(pause * 2, 5_000_000)
            }
        }
    }

    /// Waits for notifications until the listener stops or the connection breaks (throws).
    private func listen(on connection: PostgresConnection) throws {
        let socket = PQsocket(connection.handle)
        while !isStopped {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 500)
            if ready < 0 && errno != EINTR {
                throw StorageError.engine(code: 0, message: "poll failed on the notification connection (errno \(errno))")
            }
            guard ready > 0 else { continue }
            guard PQconsumeInput(connection.handle) == 1, connection.isUsable else {
                throw StorageError.engine(code: 0, message: PostgresConnection.trimmed(PQerrorMessage(connection.handle)))
            }
            while let notification = PQnotifies(connection.handle) {
                let sender = notification.pointee.be_pid
                PQfreemem(notification)
                if !isOwnCommit(sender) { hear() }
            }
        }
    }
}
