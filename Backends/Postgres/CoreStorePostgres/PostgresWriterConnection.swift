import Foundation

/// The connection a store commits (and opens, and erases) through, replaced by a new one when the
/// server dropped it (a restart, an administrator's `pg_terminate_backend`, a network gap).
///
/// A commit under way when the connection broke fails with the server's or libpq's message; it
/// is not run again, because whether the server committed it before the connection broke is not
/// known. The next commit connects afresh.
final class PostgresWriterConnection: @unchecked Sendable {
    private let lock = NSLock()
    private var connection: PostgresConnection
    private let connect: @Sendable () throws -> PostgresConnection

    init(_ connection: PostgresConnection, connect: @escaping @Sendable () throws -> PostgresConnection) {
        self.connection = connection
        self.connect = connect
    }

    /// The connection, after replacing it if the server dropped it. The store's writes are
    /// serialized by its `DataStack`; the lock only keeps `open` (reading metadata) apart.
    func current() throws -> PostgresConnection {
        try lock.withLock {
            if !connection.isUsable { connection = try connect() }
            return connection
        }
    }
}
