import Foundation
import CPostgres

/// The connection a store commits (and opens, and erases) through, replaced by a new one when the
/// server dropped it (a restart, an administrator's `pg_terminate_backend`, a network gap).
///
/// A commit under way when the connection broke fails with the server's or libpq's message; it
/// is not run again, because whether the server committed it before the connection broke is not
/// known. The next commit connects afresh.
final class PostgresWriterConnection: @unchecked Sendable {
    private let lock = NSLock()
    private var connection: PostgresConnection
    private var processID: Int32
    private let connect: @Sendable () throws -> PostgresConnection

    init(_ connection: PostgresConnection, connect: @escaping @Sendable () throws -> PostgresConnection) {
        self.connection = connection
        self.processID = PQbackendPID(connection.handle)
        self.connect = connect
    }

    /// The connection, after replacing it if the server dropped it. The store's writes are
    /// serialized by its `DataStack`; the lock only keeps `open` (reading metadata) apart.
    func current() throws -> PostgresConnection {
        try lock.withLock {
            if !connection.isUsable {
                connection = try connect()
                processID = PQbackendPID(connection.handle)
            }
            return connection
        }
    }

    /// The server process of the current connection: the sender of this store's own commit
    /// notifications. Read from the listener's thread.
    var serverProcessID: Int32 { lock.withLock { processID } }
}
