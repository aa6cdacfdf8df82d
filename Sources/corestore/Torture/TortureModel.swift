import CoreStore

/// The torture test's model at version "V1": bank accounts and the transfers between them.
///
/// Every account opened with ``TortureLedger/openingBalance`` and every transfer moved money
/// from one account to another, so the balances always add up to the same total.
enum TortureV1 {
    /// An account, unique by `number`.
    final class Account: CoreStoreObject {
        @Field.Stored("number") var number: Int = 0
        @Field.Stored("owner") var owner: String = ""
        @Field.Stored("balance") var balance: Int = 0
        @Field.Relationship("outgoing", inverse: \Transfer.$source) var outgoing: Set<Transfer>
        @Field.Relationship("incoming", inverse: \Transfer.$destination) var incoming: Set<Transfer>
    }

    /// A transfer of `amount` from `source` to `destination`, unique by `serial`.
    final class Transfer: CoreStoreObject {
        @Field.Stored("serial") var serial: Int = 0
        @Field.Stored("amount") var amount: Int = 0
        @Field.Relationship("source") var source: Account?
        @Field.Relationship("destination") var destination: Account?
    }

    static let schema = CoreStoreSchema(
        modelVersion: "V1",
        entities: [
            Entity<Account>("Account", uniqueConstraints: [[\Account.$number]]),
            Entity<Transfer>("Transfer", uniqueConstraints: [[\Transfer.$serial]]),
        ]
    )
}

/// The model at version "V2", which V1 can reach by an inferred (lightweight) step:
/// `Account.owner` is renamed `holder` (and indexed), `Account.tier` and `Transfer.memo` are new.
enum TortureV2 {
    /// An account, unique by `number`; `tier` is computed by the heavyweight step, else 0.
    final class Account: CoreStoreObject {
        @Field.Stored("number") var number: Int = 0
        @Field.Stored("holder", previousVersionKeyPath: "owner") var holder: String = ""
        @Field.Stored("balance") var balance: Int = 0
        @Field.Stored("tier") var tier: Int = 0
        @Field.Relationship("outgoing", inverse: \Transfer.$source) var outgoing: Set<Transfer>
        @Field.Relationship("incoming", inverse: \Transfer.$destination) var incoming: Set<Transfer>
    }

    /// A transfer, unique by `serial`; `memo` is written by the step that drops transfers.
    final class Transfer: CoreStoreObject {
        @Field.Stored("serial") var serial: Int = 0
        @Field.Stored("amount") var amount: Int = 0
        @Field.Stored("memo") var memo: String?
        @Field.Relationship("source") var source: Account?
        @Field.Relationship("destination") var destination: Account?
    }

    static let schema = CoreStoreSchema(
        modelVersion: "V2",
        entities: [
            Entity<Account>("Account", indexes: [[\Account.$holder]], uniqueConstraints: [[\Account.$number]]),
            Entity<Transfer>("Transfer", uniqueConstraints: [[\Transfer.$serial]]),
        ]
    )
}

/// The stacks the torture test opens a store with.
enum TortureStacks {
    /// A stack whose only (and current) version is V1: opens a V1 store without migrating.
    static func v1() -> DataStack { DataStack(TortureV1.schema) }

    /// A stack that declares V1 and V2 with the chain V1 → V2: migrates a V1 store.
    static func migrating() -> DataStack { DataStack(TortureV1.schema, TortureV2.schema, migrationChain: ["V1", "V2"]) }
}
