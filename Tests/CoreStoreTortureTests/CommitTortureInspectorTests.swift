import CoreStore
import CoreStoreConformance
import Foundation
import Testing
@testable import corestore

/// The checks behind `corestore torture commits` catch what they exist to catch: a store with
/// a torn transfer, a gap in the log, a missing or stray note, or a lost acknowledged commit is
/// reported as such, and an untouched store as intact.
@Suite("Commit torture inspector")
struct CommitTortureInspectorTests {
    typealias Model = CommitTortureModel

    /// A store at `directory` with `accounts` accounts and `commits` commits made by the child's
    /// own plans (one in eight large).
    static func makeStore(in directory: URL, accounts: Int = 10, commits: Int = 24) throws -> URL {
        let url = TortureBackend.lmdb.storeURL(in: directory)
        let stack = Model.stack()
        try stack.addStorageAndWait(TortureBackend.lmdb.makeStore(at: url, durability: .full))
        try stack.perform(synchronous: { transaction in
            for number in 0..<accounts {
                let account = transaction.create(Into<Model.Account>())
                account.number = number
                account.balance = Model.openingBalance
            }
        })
        var random = SplitMix64(seed: 3)
        for serial in 1...commits {
            let plan = CommitPlan(serial: serial, accountCount: accounts, random: &random)
            try stack.perform(synchronous: { transaction in try plan.apply(in: transaction) })
        }
        return url
    }

    /// Applies `damage` to a fresh store and returns what the inspector finds, told that
    /// `acknowledged` commits were acknowledged.
    static func inspect(acknowledged: Int = 24, _ damage: (BaseDataTransaction) throws -> Void = { _ in }) throws -> CommitTortureInspector.Finding {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("inspector-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try makeStore(in: directory)
        do {
            let stack = Model.stack()
            try stack.addStorageAndWait(TortureBackend.lmdb.makeStore(at: url, durability: .full))
            try stack.perform(synchronous: { transaction in try damage(transaction) })
        }
        return CommitTortureInspector(backend: .lmdb, durability: .full, accountCount: 10).inspect(url, acknowledged: acknowledged)
    }

    @Test func anUntouchedStoreIsIntact() throws {
        guard case .intact(let last) = try Self.inspect() else { Issue.record("not intact"); return }
        #expect(last == 24)
        // One more commit than acknowledged is the commit in flight when the child was killed.
        guard case .intact = try Self.inspect(acknowledged: 23) else { Issue.record("not intact with one commit in flight"); return }
    }

    @Test func aHalfTransferIsTorn() throws {
        let finding = try Self.inspect { transaction in
            try transaction.fetchOne(From<Model.Account>().where(\.$number == 3))?.balance += 5
        }
        guard case .torn(let reason) = finding else { Issue.record("found \(finding)"); return }
        #expect(reason.contains("balances add up"))
    }

    @Test func aGapInTheLogIsTorn() throws {
        let finding = try Self.inspect { transaction in
            // Commit 5's notes were pruned by commit 21: deleting it leaves just the gap.
            let commit = try #require(try transaction.fetchOne(From<Model.Commit>().where(\.$serial == 5)))
            #expect(commit.noteCount == 0)
            transaction.delete(commit)
        }
        guard case .torn(let reason) = finding else { Issue.record("found \(finding)"); return }
        #expect(reason.contains("gap"))
    }

    @Test func aMissingNoteIsTorn() throws {
        var damaged = 0
        let finding = try Self.inspect { transaction in
            let note = try #require(try transaction.fetchOne(From<Model.Note>().orderBy(.descending(\.$serial))))
            damaged = note.serial
            transaction.delete(note)
        }
        guard case .torn(let reason) = finding else { Issue.record("found \(finding)"); return }
        #expect(reason.contains("commit \(damaged) should keep"))
    }

    @Test func aLostAcknowledgedCommitIsLost() throws {
        let finding = try Self.inspect(acknowledged: 25)
        guard case .lost(let reason) = finding else { Issue.record("found \(finding)"); return }
        #expect(reason.contains("25"))
    }

    @Test func moreCommitsThanTheChildrenMadeIsAnError() throws {
        guard case .error = try Self.inspect(acknowledged: 20) else { Issue.record("expected an error"); return }
    }
}
