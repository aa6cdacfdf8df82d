import ArgumentParser
import CoreStore

/// The V1 → V2 step a torture run takes; runs rotate through all three.
enum TortureMigration: String, CaseIterable, ExpressibleByArgument {
    /// Heavyweight: a transformer copies every account and computes its `tier`; nothing dropped.
    case transform
    /// Heavyweight: a transformer drops every transfer whose serial is a multiple of
    /// ``droppedSerialModulus`` and writes a `memo` on the others.
    case drop
    /// Lightweight, inferred (on SQLite: `ALTER TABLE` in place of a copy).
    case lightweight

    /// Transfers whose serial is a multiple of this are dropped by ``drop``.
    static let droppedSerialModulus = 5

    /// The mapping providers the store is created with.
    var mappingProviders: [any SchemaMappingProvider] {
        switch self {
        case .transform:
            return [CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [
                .transformEntity(sourceEntity: "Account", destinationEntity: "Account") { source, createDestination in
                    let destination = Self.copy(source, into: createDestination())
                    destination["tier"] = Self.tier(balance: Int(source["balance"] as? Int64 ?? 0))
                },
            ])]
        case .drop:
            return [CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [
                .transformEntity(sourceEntity: "Transfer", destinationEntity: "Transfer") { source, createDestination in
                    let serial = Int(source["serial"] as? Int64 ?? -1)
                    guard Self.drop.keepsTransfer(serial: serial) else { return }
                    Self.copy(source, into: createDestination())["memo"] = Self.memo(serial: serial)
                },
            ])]
        case .lightweight:
            return []
        }
    }

    /// Whether `migrationTypes` is the V1 → V2 step of this migration.
    func isTheStep(_ migrationTypes: [MigrationType]) -> Bool {
        let expected: MigrationType = self == .lightweight
            ? .lightweight(sourceVersion: "V1", destinationVersion: "V2")
            : .heavyweight(sourceVersion: "V1", destinationVersion: "V2")
        return migrationTypes == [expected]
    }

    /// The V2 `tier` of an account whose balance is `balance`.
    func expectedTier(balance: Int) -> Int {
        self == .transform ? Self.tier(balance: balance) : 0
    }

    /// Whether the transfer `serial` is still there at V2.
    func keepsTransfer(serial: Int) -> Bool {
        self != .drop || serial % Self.droppedSerialModulus != 0
    }

    /// The V2 `memo` of the transfer `serial`.
    func expectedMemo(serial: Int) -> String? {
        self == .drop ? Self.memo(serial: serial) : nil
    }

    private static func tier(balance: Int) -> Int { balance / 250 }

    private static func memo(serial: Int) -> String { "kept #\(serial)" }

    /// Sets every attribute of `destination` that has a source attribute to the source's value.
    @discardableResult
    private static func copy(_ source: UnsafeSourceObject, into destination: UnsafeDestinationObject) -> UnsafeDestinationObject {
        destination.enumerateAttributes { attribute, sourceAttribute in
            if let sourceAttribute { destination[attribute] = source[sourceAttribute] }
        }
        return destination
    }
}
