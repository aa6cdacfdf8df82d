import ArgumentParser
import CoreStore
import CoreStoreConformance
import Foundation

/// `corestore torture commit-child` (hidden): the process `torture commits` kills. Opens the
/// store, continues its commit log where it ends, and commits until killed (or until
/// `--commits` commits), printing `ready N` once open (N: the last serial found) and `ack N`
/// as soon as commit N has returned. Lines are written unbuffered, so the parent sees each as
/// it happens.
struct CommitTortureChildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "commit-child",
        abstract: "Commit transfers to a store until killed, printing each acknowledged commit (run by 'torture commits').",
        shouldDisplay: false
    )

    /// The prefix of the line printed once the store is open, followed by the last serial.
    static let readyPrefix = "ready "
    /// The prefix of the line printed after a commit returned, followed by its serial.
    static let ackPrefix = "ack "

    @Option(help: "The store kind.")
    var backend: TortureBackend

    @Option(help: "The store's file or directory.")
    var path: String

    @Option(help: "The durability of the store's commits: full or normal.")
    var durability: TortureDurability = .full

    @Option(help: "The seed of the transfers (mixed with the first serial).")
    var seed: UInt64 = 1

    @Option(help: "Stop after this many commits (default: commit until killed).")
    var commits: Int?

    func run() async throws {
        CoreStoreDefaults.logger = DefaultLogger(minimumLevel: .warning)
        let stack = CommitTortureModel.stack()
        try stack.addStorageAndWait(backend.makeStore(at: URL(fileURLWithPath: path), durability: durability.value))
        var serial = try stack.queryValue(From<CommitTortureModel.Commit>().select(Int.self, .maximum(\.$serial))) ?? 0
        let accountCount = try stack.fetchCount(From<CommitTortureModel.Account>())
        guard accountCount >= 2 else { throw ValidationError("the store has \(accountCount) accounts; 'torture commits' seeds them") }
        TortureChildOutput.emit(Self.readyPrefix + "\(serial)")
        var random = SplitMix64(seed: seed ^ (UInt64(serial) &* 0x9E37_79B9_7F4A_7C15))
        var committed = 0
        while commits.map({ committed < $0 }) ?? true {
            serial += 1
            let plan = CommitPlan(serial: serial, accountCount: accountCount, random: &random)
            try stack.perform(synchronous: { transaction in try plan.apply(in: transaction) })
            TortureChildOutput.emit(Self.ackPrefix + "\(serial)")
            committed += 1
        }
    }
}

/// What one commit of the child does: transfers, the log entry with its notes, and pruning.
/// One in eight commits is large (a hundred transfers and hundreds of notes), so that kills also
/// land inside commits that take many pages or log blocks.
struct CommitPlan {
    /// A transfer of `amount` between two different accounts.
    struct Transfer {
        let source: Int
        let destination: Int
        let amount: Int
    }

    let serial: Int
    let transfers: [Transfer]
    let noteCount: Int

    init(serial: Int, accountCount: Int, random: inout SplitMix64) {
        self.serial = serial
        let large = random.oneIn(8)
        transfers = (0..<(large ? 100 : 1 + random.below(3))).map { _ in
            let source = random.below(accountCount)
            return Transfer(source: source, destination: (source + 1 + random.below(accountCount - 1)) % accountCount, amount: 1 + random.below(500))
        }
        noteCount = large ? 200 + random.below(200) : random.below(4)
    }

    /// Makes the commit's changes in `transaction`.
    func apply(in transaction: BaseDataTransaction) throws {
        typealias Model = CommitTortureModel
        for transfer in transfers {
            guard let source = try transaction.fetchOne(From<Model.Account>().where(\.$number == transfer.source)),
                  let destination = try transaction.fetchOne(From<Model.Account>().where(\.$number == transfer.destination)) else {
                throw ValidationError("account \(transfer.source) or \(transfer.destination) is missing")
            }
            source.balance -= transfer.amount
            destination.balance += transfer.amount
        }
        let commit = transaction.create(Into<Model.Commit>())
        commit.serial = serial
        commit.noteCount = noteCount
        for index in 0..<noteCount {
            let note = transaction.create(Into<Model.Note>())
            note.serial = serial
            note.text = "note \(index) of commit \(serial)"
            note.commit = commit
        }
        if let old = try transaction.fetchOne(From<Model.Commit>().where(\.$serial == serial - Model.pruneDistance)) {
            transaction.delete(old.notes)
            old.noteCount = 0
        }
    }
}
