import Foundation
import CoreStoreStorage

/// A store added to a `DataStack`: the engine, the schema it was opened with, and a
/// process-unique identifier used in ``ObjectID``s.
final class AttachedStore: @unchecked Sendable {
    let id: UInt64
    let storage: any StorageInterface
    let schema: StoreSchema

    init(storage: any StorageInterface, schema: StoreSchema) {
        self.id = AttachedStore.nextID()
        self.storage = storage
        self.schema = schema
    }

    private let sequenceLock = NSLock()
    private var _lastSequence: UInt64?

    /// The sequence of the last commit this stack made to the store (`nil` before its first).
    /// Only `DataStack.commit` sets it, while no other commit of the stack can run.
    var lastSequence: UInt64? {
        get { sequenceLock.withLock { _lastSequence } }
        set { sequenceLock.withLock { _lastSequence = newValue } }
    }

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
