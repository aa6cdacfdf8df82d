import Foundation
import CoreStoreStorage

/// An engine's open handle (an `MDB_env`, a `leveldb_t`, a log file) as
/// ``DirectoryEngineShell`` keeps it.
public protocol KeyValueEngineConnection: AnyObject, Sendable {
    /// Releases the handle. The shell calls it once, after every transaction through the handle
    /// has ended.
    func close()
}

/// The lifecycle every ``OrderedKeyValueStore`` that keeps its store in a directory shares,
/// written once: open (refusing a directory that is not the engine's before anything is
/// written), transactions that fail with `StorageError/notOpen(store:)` when the engine is
/// closed, close (after the transactions in progress) and destroy (the engine's files only).
/// The engine keeps its C calls and its ``DirectoryStoreFormat``:
///
/// ```swift
/// public final class MyEngine: OrderedKeyValueStore, @unchecked Sendable {
///     private let shell: DirectoryEngineShell<MyHandle>
///     public init(directoryURL: URL) {
///         shell = DirectoryEngineShell(directoryURL: directoryURL, engineName: "MyEngine", format: MyFormat())
///     }
///     public var storeDescription: String { shell.storeDescription }
///     public func open() throws { try shell.open { creating in try MyHandle(shell.directoryURL, create: creating) } }
///     public func read<T>(_ body: (any KeyValueReader) throws -> T) throws -> T {
///         try shell.transaction { handle in try handle.withSnapshot(body) }
///     }
///     public func close() { shell.close() }
///     public func destroy() throws { try shell.destroy() }
///     …
/// }
/// ```
///
/// ## Locking
/// One lock guards the open handle; it is held while opening and destroying, never while a
/// transaction runs. Transactions enter through a ``KeyValueTransactionGate`` per open handle,
/// so ``close()`` waits for them and ``exclusive(_:)`` (LMDB's map resize) shuts them out. The
/// shell does not serialize writes: ``KeyValueStorage`` already runs one at a time
/// (``OrderedKeyValueStore`` requirement 4), and an engine adds a lock only when its library
/// needs one.
///
/// REQUIRES: `open(_:)`, ``close()`` and ``destroy()`` are not called concurrently with each
/// other (``KeyValueStorage`` calls them one at a time); transactions may run on any thread.
public final class DirectoryEngineShell<Connection: KeyValueEngineConnection>: @unchecked Sendable {
    /// The store directory (standardized).
    public let directoryURL: URL
    /// `<engine name>(<path>)`, for logs and errors.
    public let storeDescription: String
    /// The engine's files.
    public let format: any DirectoryStoreFormat

    /// The open handle and its gate. A class: handing a session out of the lock copies one
    /// reference, where a struct of a generic field made the unspecialized code look its type
    /// up at run time on every transaction.
    private final class Session {
        let connection: Connection
        let gate: KeyValueTransactionGate

        init(connection: Connection, gate: KeyValueTransactionGate) {
            self.connection = connection
            self.gate = gate
        }
    }

    private let lock = NSLock()
    private var session: Session?

    /// A shell for the store in `directoryURL`; nothing is touched before `open(_:)`.
    public init(directoryURL: URL, engineName: String, format: any DirectoryStoreFormat) {
        self.directoryURL = directoryURL.standardizedFileURL
        self.storeDescription = "\(engineName)(\(self.directoryURL.path))"
        self.format = format
    }

    deinit {
        if let session {
            session.gate.close()
            session.connection.close()
        }
    }

    /// Opens the store; does nothing when it is open. Inspects the directory first
    /// (``DirectoryStoreFormat/inspect(_:)``), creates it when it is ``DirectoryStoreContents/absent``,
    /// then calls `connect` with `creating` set in that case. A foreign or damaged directory
    /// throws `StorageError/incompatibleStore(path:reason:)` before anything is written, and
    /// so does an absent one when `creatingWhenAbsent` is false (nothing is created).
    public func open(creatingWhenAbsent: Bool = true, _ connect: (_ creating: Bool) throws -> Connection) throws {
        try lock.withLock {
            guard session == nil else { return }
            let creating = try format.inspect(directoryURL) == .absent
            if creating && !creatingWhenAbsent {
                throw StorageError.incompatibleStore(path: directoryURL.path, reason: "there is no \(format.storeKind) store there")
            }
            if creating {
                do {
                    try PrivateFiles.createDirectory(directoryURL)
                } catch {
                    throw StorageError.engine(code: Int(EIO), message: "cannot create the \(format.storeKind) directory \(directoryURL.path): \(error.localizedDescription)")
                }
            }
            let connection = try connect(creating)
            session = Session(connection: connection, gate: KeyValueTransactionGate(storeDescription: storeDescription))
        }
    }

    /// Runs `body` with the open handle, as one of any number of concurrent transactions.
    /// Throws `StorageError/notOpen(store:)` when the store is closed or closing.
    public func transaction<T>(_ body: (Connection) throws -> T) throws -> T {
        let session = try currentSession()
        return try session.gate.shared { try body(session.connection) }
    }

    /// Runs `body` with the open handle while no transaction runs (see
    /// ``KeyValueTransactionGate/exclusive(_:)``). Throws `StorageError/notOpen(store:)` when
    /// the store is closed or closing.
    /// REQUIRES: not called from inside ``transaction(_:)`` (it would wait for itself).
    public func exclusive<T>(_ body: (Connection) throws -> T) throws -> T {
        let session = try currentSession()
        return try session.gate.exclusive { try body(session.connection) }
    }

    /// Refuses new transactions, waits for the running ones, then closes the handle. Later
    /// transactions throw `StorageError/notOpen(store:)` until `open(_:)`.
    public func close() {
        let closing = lock.withLock { () -> Session? in
            defer { session = nil }
            return session
        }
        guard let closing else { return }
        closing.gate.close()
        closing.connection.close()
    }

    /// Closes the store and deletes its files (``DirectoryStoreFormat/deleteStoreFiles(in:)``),
    /// then the directory when it is left empty. A directory that is not this engine's throws
    /// `StorageError/incompatibleStore(path:reason:)` and is not touched.
    public func destroy() throws {
        close()
        try lock.withLock {
            let path = directoryURL.path
            guard FileManager.default.fileExists(atPath: path) else { return }
            _ = try format.inspect(directoryURL)
            try format.deleteStoreFiles(in: directoryURL)
            do {
                // The engine may have removed the directory itself (`leveldb_destroy_db` does).
                if FileManager.default.fileExists(atPath: path), try FileManager.default.contentsOfDirectory(atPath: path).isEmpty {
                    try FileManager.default.removeItem(atPath: path)
                }
            } catch {
                throw StorageError.engine(code: Int(EIO), message: "cannot delete the \(format.storeKind) directory \(path): \(error.localizedDescription)")
            }
        }
    }

    /// The open session. Locked by hand: `withLock`'s generic result, `Session?` of this
    /// generic class, made the unspecialized code look both types' metadata up at run time on
    /// every transaction (some 650 instructions).
    private func currentSession() throws -> Session {
        lock.lock()
        let session = self.session
        lock.unlock()
        guard let session else { throw StorageError.notOpen(store: storeDescription) }
        return session
    }
}
