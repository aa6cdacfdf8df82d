import CoreStore
import Foundation

/// The model of `corestore torture commits`: accounts whose balances always add up to the same
/// total, a gap-free log of commits, and the notes each commit wrote.
///
/// Every commit moves money between accounts, appends the next ``Commit`` to the log with the
/// notes it creates, and prunes the notes of an older commit. A torn commit breaks one of the
/// invariants ``CommitTortureInspector`` checks: the total, the gap-free log, or a commit's note
/// count against the notes that point to it.
enum CommitTortureModel {
    /// An account, unique by `number`.
    final class Account: CoreStoreObject {
        @Field.Stored("number") var number: Int = 0
        @Field.Stored("balance") var balance: Int = 0
    }

    /// One acknowledged (or in-flight) commit: serials run 1, 2, 3… without gaps.
    final class Commit: CoreStoreObject {
        @Field.Stored("serial") var serial: Int = 0
        /// How many notes of this commit are kept (0 once pruned).
        @Field.Stored("noteCount") var noteCount: Int = 0
        @Field.Relationship("notes", inverse: \Note.$commit) var notes: Set<Note>
    }

    /// A note written by a commit; `serial` repeats its commit's.
    final class Note: CoreStoreObject {
        @Field.Stored("serial") var serial: Int = 0
        @Field.Stored("text") var text: String = ""
        @Field.Relationship("commit") var commit: Commit?
    }

    static let schema = CoreStoreSchema(
        modelVersion: "Commits1",
        entities: [
            Entity<Account>("Account", uniqueConstraints: [[\Account.$number]]),
            Entity<Commit>("Commit", uniqueConstraints: [[\Commit.$serial]]),
            Entity<Note>("Note", indexes: [[\Note.$serial]]),
        ]
    )

    /// What every account holds before the first transfer.
    static let openingBalance = 1_000

    /// A commit prunes the notes of the commit this many serials before it.
    static let pruneDistance = 16

    /// A stack for the model.
    static func stack() -> DataStack { DataStack(schema) }

    /// Creates a store at `url` holding `accounts` accounts, each at the opening balance, and
    /// closes it.
    static func seed(accounts: Int, at url: URL, backend: TortureBackend, durability: TortureDurability) throws {
        let stack = stack()
        try stack.addStorageAndWait(backend.makeStore(at: url, durability: durability.value))
        try stack.perform(synchronous: { transaction in
            for number in 0..<accounts {
                let account = transaction.create(Into<Account>())
                account.number = number
                account.balance = openingBalance
            }
        })
    }
}
