import Foundation

/// The open/closed state of a store, kept once for every backend: the state a store holds while
/// open (a connection, a layout, a snapshot), `nil` while closed, and the one
/// ``StorageError/notOpen(store:)`` error for every call made while closed.
///
/// ```swift
/// private let lifecycle = StoreLifecycle<Connection> { "MyStore(\(path))" }
///
/// public func read<T>(_ body: (any StorageReader) throws -> T) throws -> T {
///     try lifecycle.withOpen { connection in try body(MyReader(connection)) }
/// }
/// ```
///
/// ## Concurrency
/// Reading the state is safe from any thread at any time (readers run alongside a write). The
/// calls that change it — `open`, `write`, `erase`, `close` of ``StorageInterface`` — are
/// serialized by the caller (a `DataStack` is a store's only writer and runs them one at a
/// time), so a store needs no write lock of its own; an engine keeps only the locks its C
/// library requires.
public final class StoreLifecycle<State: Sendable>: @unchecked Sendable {
    // Visible to inlined code: `current` and `open()` run on every read and write, and
    // inlined into the store's module they are specialized for its state (unspecialized,
    // reading the state cost about two thousand instructions of metadata look-ups and copies).
    @usableFromInline let lock = NSLock()
    @usableFromInline var state: State?
    @usableFromInline let describe: @Sendable () -> String

    /// A closed lifecycle; `describe` names the store in errors (evaluated only when one is thrown).
    public init(_ describe: @escaping @Sendable () -> String) {
        self.describe = describe
    }

    /// The state while open, `nil` while closed.
    @inlinable
    public var current: State? {
        lock.withLock { state }
    }

    /// Whether the store is open.
    @inlinable
    public var isOpen: Bool { current != nil }

    /// The state while open; throws ``StorageError/notOpen(store:)`` while closed.
    @inlinable
    public func open() throws -> State {
        guard let state = current else { throw StorageError.notOpen(store: describe()) }
        return state
    }

    /// Runs `body` with the state while open; throws ``StorageError/notOpen(store:)`` while closed.
    @inlinable
    public func withOpen<T>(_ body: (State) throws -> T) throws -> T {
        try body(try open())
    }

    /// Makes `state` the open state (opening the store, or publishing a new snapshot after a commit).
    public func install(_ state: State) {
        lock.withLock { self.state = state }
    }

    /// Closes the store: forgets the state and returns it (`nil` when it was not open) so that
    /// the store can release what it holds.
    @discardableResult
    public func close() -> State? {
        lock.withLock {
            defer { state = nil }
            return state
        }
    }
}
