import Foundation
import Testing
@testable import CoreStore
import CoreStoreSQLite

/// Two stores on one file take their keys and sequences from the same counters (in WAL mode
/// the counters file both map; with the classic journal the database, where a writer connection
/// reuses what it stored while SQLite's data version shows no other connection's commit): they
/// must never hand out the same key or the same sequence.
@Suite("SQLiteStore commit counters")
struct SQLiteCommitCountersTests {
    @Test("Two stores on one file, committing in turn, never share a key or a sequence")
    func alternatingStores() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let stores = [SQLiteStore(fileURL: url), SQLiteStore(fileURL: url)]
        let stacks = try stores.map { store in
            let stack = DataStack(sqliteTestSchema)
            try stack.addStorageAndWait(store)
            return stack
        }
        var ids: [ObjectID] = []
        var sequences: [UInt64] = []
        // Runs of one, two and three commits by the same store, then the other's turn.
        for (round, writer) in [0, 1, 0, 0, 1, 1, 1, 0, 1, 0].enumerated() {
            ids.append(try insertAccount(stacks[writer], "a\(round)@example.com"))
            sequences.append(try stores[writer].storedCommitSequence())
        }
        #expect(Set(ids).count == ids.count, "keys handed out twice: \(ids)")
        #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $0 < $1 }, "sequences do not ascend: \(sequences)")
        for stack in stacks { #expect(try stack.fetchCount(From<Account>()) == ids.count) }
        // A commit that inserts nothing advances the sequence and leaves the key counter alone.
        try stacks[1].perform(synchronous: { transaction in
            try transaction.fetchOne(From<Account>().where(\.$email == "a0@example.com"))?.handle = "first"
        })
        #expect(try stores[0].storedCommitSequence() == sequences.last! + 1)
        let next = try insertAccount(stacks[0], "last@example.com")
        #expect(!ids.contains(next))
        #expect(next.recordID.key == ids.map(\.recordID.key).max()! + 1)
    }

    @Test("A failed commit leaves the counters as they were")
    func failedCommit() throws {
        let directory = try TemporaryDirectory()
        let stack = try makeSQLiteStack(directory.file())
        let first = try insertAccount(stack, "taken@example.com")
        // The unique email refuses the second insert: nothing of it may stay.
        #expect(throws: CoreStoreError.self) { _ = try insertAccount(stack, "taken@example.com") }
        let second = try insertAccount(stack, "free@example.com")
        #expect(second.recordID.key == first.recordID.key + 1)
        #expect(try stack.fetchCount(From<Account>()) == 2)
    }
}
