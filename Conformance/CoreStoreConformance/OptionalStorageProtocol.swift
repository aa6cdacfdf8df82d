import CoreStoreStorage

/// A protocol of the storage contract that a store may adopt beside `StorageInterface`, such as
/// `ReadOnlyOpening`: the cases that test one run only on the stores that adopt it, and the
/// others list them as skipped, with the protocol's name as the reason.
public struct OptionalStorageProtocol: Sendable, Hashable, CustomStringConvertible {
    /// The protocol's name, as the skip reasons show it.
    public let name: String
    let isAdopted: @Sendable (any StorageInterface) -> Bool

    /// The stores the tools can open without changing them.
    public static let readOnlyOpening = OptionalStorageProtocol(name: "ReadOnlyOpening") { $0 is any ReadOnlyOpening }

    /// The stores several instances (several `DataStack`s, several processes) may have open
    /// and write at once.
    public static let sharedAccess = OptionalStorageProtocol(name: "SharedAccessStorage") { $0 is any SharedAccessStorage }

    /// The stores a `DataStack` migrates: `UpgradableStorage` (options and custom mappings) and
    /// `MigratableStorage` (the engine's side of a migration step).
    public static let migratable = OptionalStorageProtocol(name: "UpgradableStorage & MigratableStorage") {
        $0 is any UpgradableStorage && $0 is any MigratableStorage
    }

    /// Every optional protocol some case needs.
    public static let all: [OptionalStorageProtocol] = [.readOnlyOpening, .sharedAccess, .migratable]

    /// The protocols of ``all`` that `store` adopts.
    static func adopted(by store: any StorageInterface) -> Set<OptionalStorageProtocol> {
        Set(all.filter { $0.isAdopted(store) })
    }

    /// The protocol's name.
    public var description: String { name }

    /// Protocols are identified by ``name``.
    public static func == (lhs: OptionalStorageProtocol, rhs: OptionalStorageProtocol) -> Bool { lhs.name == rhs.name }

    /// Hashes ``name``.
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}
