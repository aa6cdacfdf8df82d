import Foundation
import Synchronization
import Testing
@testable import CoreStore
import CoreStoreStorage

@Suite("Readers during commits")
struct ReadersDuringCommitsTests {
    /// A read of storage that began before a commit, registered after the commit was merged,
    /// gives the object the merged values, not the ones it read.
    @Test(arguments: StoreKind.allCases)
    func aReadThatMissedAMergeTakesTheMergedValues(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        let id = try stack.perform(synchronous: { transaction in
            let person = transaction.create(Into<Person>())
            person.age = 1
            return person
        }).cs_id()
        let objectID = try #require(id)
        let context = stack.mainContext
        let store = try #require(stack.store(withID: objectID.storeID))
        let stale = try #require(try stack.gateway.read(store) { try $0.records([objectID.recordID]) }.first ?? nil)
        let ticket = context.lock.withLock { context.beginRead() }
        try stack.perform(synchronous: { transaction in
            transaction.edit(Into<Person>(), objectID)?.age = 2
        })
        let object = context.lock.withLock { context.object(for: stale, in: store, readSince: ticket) }
        #expect((object as? Person)?.age == 2)
        context.lock.withLock { context.endRead(ticket) }
        #expect(try stack.fetchOne(From<Person>())?.age == 2)
    }

    /// The same read, when the commit deleted the record, makes no object at all.
    @Test(arguments: StoreKind.allCases)
    func aReadThatMissedADeleteMakesNoObject(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        let objectID = try #require(try stack.perform(synchronous: { transaction in
            transaction.create(Into<Person>())
        }).cs_id())
        let context = stack.mainContext
        let store = try #require(stack.store(withID: objectID.storeID))
        let stale = try #require(try stack.gateway.read(store) { try $0.records([objectID.recordID]) }.first ?? nil)
        let ticket = context.lock.withLock { context.beginRead() }
        try stack.perform(synchronous: { transaction in
            transaction.delete(transaction.fetchExisting(objectID) as Person?)
        })
        let object = context.lock.withLock { context.object(for: stale, in: store, readSince: ticket) }
        #expect(object == nil)
        context.lock.withLock { context.endRead(ticket) }
        #expect(try stack.fetchCount(From<Person>()) == 0)
    }

    /// Readers on several threads while commits change what they read: no reader ever sees a
    /// value older than the one committed (and merged) before its fetch began.
    @Test(arguments: StoreKind.allCases)
    func noReaderSeesAValueOlderThanTheLastMergeBeforeItsFetch(_ kind: StoreKind) async throws {
        let stack = try makeStack(kind)
        try stack.perform(synchronous: { transaction in
            for i in 0..<200 {
                let person = transaction.create(Into<Person>())
                person.name = "p\(i)"
                person.age = 0
            }
        })
        let lastCommitted = CommitCounter()
        let commits = 60
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for value in 1...commits {
                    try stack.perform(synchronous: { transaction in
                        for person in try transaction.fetchAll(From<Person>()) { person.age = value }
                    })
                    lastCommitted.value.store(value, ordering: .sequentiallyConsistent)
                }
            }
            for _ in 0..<3 {
                group.addTask {
                    while lastCommitted.value.load(ordering: .sequentiallyConsistent) < commits {
                        let floor = lastCommitted.value.load(ordering: .sequentiallyConsistent)
                        let people = try stack.fetchAll(From<Person>().where(\.$age >= 0))
                        #expect(people.count == 200)
                        let oldest = people.map(\.age).min() ?? 0
                        #expect(oldest >= floor, "a fetch that began after commit \(floor) showed \(oldest)")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try stack.fetchAll(From<Person>()).allSatisfy { $0.age == commits })
    }
}

/// The last commit a writer finished, shared with the readers.
private final class CommitCounter: Sendable {
    let value = Atomic<Int>(0)
}
