import CoreStoreStorage

/// Fetch settings that a ``Tweak`` clause can change.
public struct FetchTweaks: Sendable {
    /// At most this many results; `0` means no limit.
    public var fetchLimit: Int = 0
    /// Skip this many results first.
    public var fetchOffset: Int = 0
    /// Inside a transaction, whether uncommitted inserts, updates and deletes are taken into
    /// account (they are by default). Fetches from a `DataStack` only see commits.
    public var includesPendingChanges: Bool = true
    /// Whether objects of sub-entities are included (they are by default).
    public var includesSubentities: Bool = true

    /// Creates the default settings.
    public init() {}
}
