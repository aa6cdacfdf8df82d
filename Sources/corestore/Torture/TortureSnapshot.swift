import CoreStore

/// The objects of a torture store as plain values — read from a store, or expected from the
/// ledger — so that a store at V1 and one at V2 are compared the same way.
struct TortureSnapshot {
    /// An account: `tier` is `nil` at V1.
    struct Account: Equatable {
        var number: Int
        var name: String
        var balance: Int
        var tier: Int?
        var outgoing: Set<Int>
        var incoming: Set<Int>
    }

    /// A transfer; `source` and `destination` are account numbers.
    struct Transfer: Equatable {
        var serial: Int
        var amount: Int
        var memo: String?
        var source: Int?
        var destination: Int?
    }

    /// Accounts by number.
    var accounts: [Int: Account] = [:]
    /// Transfers by serial.
    var transfers: [Int: Transfer] = [:]
    /// Numbers or serials found on more than one object.
    var duplicates: [String] = []

    /// What a store holds at V1 (`migration == nil`) or after `migration` took it to V2.
    static func expected(from ledger: TortureLedger, after migration: TortureMigration?) -> TortureSnapshot {
        var snapshot = TortureSnapshot()
        for account in ledger.accounts {
            snapshot.accounts[account.number] = Account(
                number: account.number, name: account.owner, balance: account.balance,
                tier: migration?.expectedTier(balance: account.balance), outgoing: [], incoming: []
            )
        }
        for transfer in ledger.transfers where migration?.keepsTransfer(serial: transfer.serial) ?? true {
            snapshot.transfers[transfer.serial] = Transfer(
                serial: transfer.serial, amount: transfer.amount, memo: migration?.expectedMemo(serial: transfer.serial),
                source: transfer.source, destination: transfer.destination
            )
            snapshot.accounts[transfer.source]?.outgoing.insert(transfer.serial)
            snapshot.accounts[transfer.destination]?.incoming.insert(transfer.serial)
        }
        return snapshot
    }

    /// Everything a stack whose current version is V1 sees.
    static func readV1(_ stack: DataStack) throws -> TortureSnapshot {
        var snapshot = TortureSnapshot()
        for account in try stack.fetchAll(From<TortureV1.Account>()) {
            snapshot.add(Account(
                number: account.number, name: account.owner, balance: account.balance, tier: nil,
                outgoing: Set(account.outgoing.map(\.serial)), incoming: Set(account.incoming.map(\.serial))
            ))
        }
        for transfer in try stack.fetchAll(From<TortureV1.Transfer>()) {
            snapshot.add(Transfer(
                serial: transfer.serial, amount: transfer.amount, memo: nil,
                source: transfer.source?.number, destination: transfer.destination?.number
            ))
        }
        return snapshot
    }

    /// Everything a stack whose current version is V2 sees.
    static func readV2(_ stack: DataStack) throws -> TortureSnapshot {
        var snapshot = TortureSnapshot()
        for account in try stack.fetchAll(From<TortureV2.Account>()) {
            snapshot.add(Account(
                number: account.number, name: account.holder, balance: account.balance, tier: account.tier,
                outgoing: Set(account.outgoing.map(\.serial)), incoming: Set(account.incoming.map(\.serial))
            ))
        }
        for transfer in try stack.fetchAll(From<TortureV2.Transfer>()) {
            snapshot.add(Transfer(
                serial: transfer.serial, amount: transfer.amount, memo: transfer.memo,
                source: transfer.source?.number, destination: transfer.destination?.number
            ))
        }
        return snapshot
    }

    private mutating func add(_ account: Account) {
        if accounts[account.number] != nil { duplicates.append("account \(account.number)") }
        accounts[account.number] = account
    }

    private mutating func add(_ transfer: Transfer) {
        if transfers[transfer.serial] != nil { duplicates.append("transfer \(transfer.serial)") }
        transfers[transfer.serial] = transfer
    }

    /// How this snapshot differs from `expected`: objects missing, and everything else wrong
    /// (values, relationships, extra or duplicate objects, a broken balance total).
    func differences(from expected: TortureSnapshot, totalBalance: Int) -> TortureDifferences {
        var result = TortureDifferences()
        for (number, account) in expected.accounts.sorted(by: { $0.key < $1.key }) {
            guard let found = accounts[number] else { result.missing.append("account \(number)"); continue }
            if found != account { result.wrong.append("account \(number) is \(found), expected \(account)") }
        }
        for (serial, transfer) in expected.transfers.sorted(by: { $0.key < $1.key }) {
            guard let found = transfers[serial] else { result.missing.append("transfer \(serial)"); continue }
            if found != transfer { result.wrong.append("transfer \(serial) is \(found), expected \(transfer)") }
        }
        result.wrong += accounts.keys.filter { expected.accounts[$0] == nil }.sorted().map { "unexpected account \($0)" }
        result.wrong += transfers.keys.filter { expected.transfers[$0] == nil }.sorted().map { "unexpected transfer \($0)" }
        result.wrong += duplicates.map { "\($0) is stored twice" }
        let total = accounts.values.reduce(0) { $0 + $1.balance }
        if total != totalBalance { result.wrong.append("the balances add up to \(total), not \(totalBalance)") }
        return result
    }
}

/// What is missing from a store and what is wrong in it.
struct TortureDifferences {
    var missing: [String] = []
    var wrong: [String] = []

    var isEmpty: Bool { missing.isEmpty && wrong.isEmpty }

    /// The first few differences, for a report.
    var summary: String {
        var parts: [String] = []
        if !missing.isEmpty { parts.append("\(missing.count) missing (\(missing.prefix(3).joined(separator: ", ")))") }
        if !wrong.isEmpty { parts.append("\(wrong.count) wrong (\(wrong.prefix(3).joined(separator: "; ")))") }
        return parts.joined(separator: ", ")
    }
}
