import CoreStore
import CoreStoreConformance

/// The data a torture run seeds its template store with, generated from a seed so that every
/// store can be checked against it: accounts that opened with ``openingBalance`` each and the
/// transfers between them, whose replay gives every account's balance.
struct TortureLedger {
    /// An account as seeded.
    struct Account: Equatable {
        let number: Int
        let owner: String
        let balance: Int
    }

    /// A transfer as seeded: `amount` from the account `source` to the account `destination`.
    struct Transfer: Equatable {
        let serial: Int
        let amount: Int
        let source: Int
        let destination: Int
    }

    /// What every account held before the first transfer.
    static let openingBalance = 1_000
    /// Transfers per account.
    static let transfersPerAccount = 2

    /// The accounts, by number (numbers are `0..<accounts.count`).
    let accounts: [Account]
    /// The transfers, by serial (serials are `0..<transfers.count`).
    let transfers: [Transfer]

    /// The sum of all balances, whatever the transfers.
    var totalBalance: Int { accounts.count * Self.openingBalance }

    /// The objects of the store: accounts and transfers.
    var objectCount: Int { accounts.count + transfers.count }

    /// `accountCount` accounts (at least 2) and their transfers, generated from `seed`.
    init(accountCount: Int, seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let count = max(2, accountCount)
        var balances = Array(repeating: Self.openingBalance, count: count)
        var transfers: [Transfer] = []
        for serial in 0..<(count * Self.transfersPerAccount) {
            let source = random.below(count)
            let destination = (source + 1 + random.below(count - 1)) % count
            let amount = 1 + random.below(400)
            balances[source] -= amount
            balances[destination] += amount
            transfers.append(Transfer(serial: serial, amount: amount, source: source, destination: destination))
        }
        self.transfers = transfers
        self.accounts = (0..<count).map { number in
            Account(number: number, owner: "Owner \(number)-\(random.below(10_000))", balance: balances[number])
        }
    }

    /// Writes the ledger into `stack` (at V1) in one transaction.
    func seed(into stack: DataStack) throws {
        try stack.perform(synchronous: { transaction in
            var objects: [TortureV1.Account] = []
            for account in accounts {
                let object = transaction.create(Into<TortureV1.Account>())
                object.number = account.number
                object.owner = account.owner
                object.balance = account.balance
                objects.append(object)
            }
            for transfer in transfers {
                let object = transaction.create(Into<TortureV1.Transfer>())
                object.serial = transfer.serial
                object.amount = transfer.amount
                object.source = objects[transfer.source]
                object.destination = objects[transfer.destination]
            }
        })
    }
}
