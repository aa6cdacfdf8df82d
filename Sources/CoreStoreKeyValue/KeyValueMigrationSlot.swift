import Foundation
import CoreStoreStorage

/// The migration a ``KeyValueStorage`` runs, while it runs: opening the store, or beginning
/// another migration, would treat the destination generation being written as garbage and
/// delete it, so both are refused until the migration finishes or is abandoned.
///
/// The reference is weak: a migration dropped without `finish` or `abandon` (what a crash
/// leaves, and what tests simulate) no longer holds the store, and the next open deletes what
/// it wrote.
final class KeyValueMigrationSlot: @unchecked Sendable {
    private let lock = NSLock()
    private weak var migration: (any StorageMigration)?

    /// Throws ``StorageError/invalidRequest(_:)`` while a migration of the store `description`
    /// runs.
    func requireVacant(_ description: @autoclosure () -> String) throws {
        if lock.withLock({ migration != nil }) {
            throw StorageError.invalidRequest("a migration of \(description()) is in progress")
        }
    }

    /// Records `migration` as the one running.
    func occupy(_ migration: any StorageMigration) {
        lock.withLock { self.migration = migration }
    }

    /// Forgets `migration` when it is the one running.
    func vacate(_ migration: any StorageMigration) {
        lock.withLock {
            if self.migration === migration { self.migration = nil }
        }
    }
}
