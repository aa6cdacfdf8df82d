import Foundation

/// The outcome of ``DataStack/upgradeStorageIfNeeded(_:completion:)``: the steps run.
public typealias MigrationResult = Result<[MigrationType], CoreStoreError>

/// What `dataStack.async.addStorage(_:)` reports while it adds a store.
public enum MigrationProgress<T: UpgradableStorage>: @unchecked Sendable {
    /// A migration is running; `progressObject` tells how far.
    case migrating(storage: T, progressObject: Progress)
    /// The store is added; `migrationRequired` tells whether it was migrated first.
    case finished(storage: T, migrationRequired: Bool)

    /// From 0 to 1.
    public var fractionCompleted: Double {
        switch self {
        case .migrating(_, let progress): return progress.fractionCompleted
        case .finished: return 1
        }
    }

    /// Whether the store is added.
    public var isCompleted: Bool {
        if case .finished = self { return true }
        return false
    }
}
