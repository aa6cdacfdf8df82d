import Foundation
import CoreStoreStorage

/// A store added to a `DataStack`: the engine, the schema it was opened with, and a
/// process-unique identifier used in ``ObjectID``s.
final class AttachedStore: @unchecked Sendable {
    let id: UInt64
    let storage: any StorageInterface
    let schema: StoreSchema
    /// ``storage`` as a store other connections may write to, `nil` when it is not one (cast
    /// once here: every commit asks).
    let sharedStorage: (any SharedAccessStorage)?

    init(storage: any StorageInterface, schema: StoreSchema) {
        self.id = AttachedStore.nextID()
        self.storage = storage
        self.schema = schema
        self.sharedStorage = storage as? any SharedAccessStorage
    }

    private let sequenceLock = NSLock()
    private var _lastSequence: UInt64?

    /// The sequence of the last commit of the store this stack has followed: its own commits,
    /// and on a shared store the sequence it read when it began watching or last caught up
    /// with other connections' commits (`nil` before any).
    var lastSequence: UInt64? {
        get { sequenceLock.withLock { _lastSequence } }
        set { sequenceLock.withLock { _lastSequence = newValue } }
    }

    /// The stack's own commits stored after ``lastSequence`` (another connection's commit came
    /// between): catching up from the store's commit summaries skips them, since the stack
    /// applied them when it made them. Changed only under the stack's commit lock.
    var ownCommitsAhead: Set<UInt64> {
        get { sequenceLock.withLock { _ownCommitsAhead } }
        set { sequenceLock.withLock { _ownCommitsAhead = newValue } }
    }
    private var _ownCommitsAhead: Set<UInt64> = []

    /// The store's `SharedAccessStorage.sharedIdentity`, read once when the stack starts
    /// following it (`nil` for a store that is not shared): for a file, working it out
    /// resolves paths, too slow to repeat on every commit.
    var sharedIdentity: String? {
        get { sequenceLock.withLock { _sharedIdentity } }
        set { sequenceLock.withLock { _sharedIdentity = newValue } }
    }
    private var _sharedIdentity: String?

    var configuration: String? { storage.configuration }

    func holds(_ entity: String) -> Bool {
        schema.entity(named: entity) != nil
    }

    private static let counterLock = NSLock()
    private nonisolated(unsafe) static var counter: UInt64 = 0

    private static func nextID() -> UInt64 {
        counterLock.withLock {
            counter += 1
            return counter
        }
    }
}
