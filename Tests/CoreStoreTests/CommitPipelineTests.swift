import Foundation
import Testing
@testable import CoreStore
import CoreStoreStorage

/// Collects the per-store commit descriptions a stack publishes.
final class CommitRecorder: CommitObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var _commits: [StoreCommit] = []
    var commits: [StoreCommit] { lock.withLock { _commits } }
    func stackDidCommit(_ commits: [StoreCommit]) -> ObservationDelivery? {
        lock.withLock { _commits += commits }
        return nil
    }
}

@Suite("Commit pipeline")
struct CommitPipelineTests {
    @Test(arguments: StoreKind.allCases)
    func everyCommitIsDescribedOnceWithOnlyTheKeysThatChanged(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        let recorder = CommitRecorder()
        try stack.addCommitObserver(recorder) { () throws(CoreStoreError) in }
        defer { stack.removeCommitObserver(ObjectIdentifier(recorder)) }

        try insertPeople(stack, [("Ann", 30), ("Bob", 40)])
        #expect(recorder.commits.count == 1)
        #expect(recorder.commits[0].inserted.count == 2)
        #expect(recorder.commits[0].inserted.allSatisfy { !$0.id.isTemporary })

        try stack.perform(synchronous: { transaction in
            let ann = try #require(try transaction.fetchOne(From<Person>().where(\.$name == "Ann")))
            ann.age = 31
            ann.name = "Ann"          // same value: not a change
            let bob = try #require(try transaction.fetchOne(From<Person>().where(\.$name == "Bob")))
            bob.age = 40              // same value: Bob is not updated at all
        })
        #expect(recorder.commits.count == 2)
        let update = recorder.commits[1]
        #expect(update.updated.count == 1)
        #expect(update.updatedKeys == [["age"]])
        #expect(update.inserted.isEmpty && update.deleted.isEmpty)

        try stack.perform(synchronous: { transaction in _ = try transaction.deleteAll(From<Person>().where(\.$name == "Bob")) })
        #expect(recorder.commits.count == 3)
        #expect(recorder.commits[2].deleted.count == 1)
        #expect(recorder.commits[2].sequence > recorder.commits[1].sequence)
    }

    @Test(arguments: StoreKind.allCases)
    func aTransactionWithoutChangesCommitsNothing(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        let recorder = CommitRecorder()
        try stack.addCommitObserver(recorder) { () throws(CoreStoreError) in }
        defer { stack.removeCommitObserver(ObjectIdentifier(recorder)) }
        try stack.perform(synchronous: { _ in })
        #expect(recorder.commits.isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func objectsOfTheStackSeeCommittedValuesWithoutRefetching(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("Ann", 30)])
        let ann = try #require(try stack.fetchOne(From<Person>()))
        try stack.perform(synchronous: { transaction in
            try #require(transaction.edit(ann)).age = 50
        })
        #expect(ann.age == 50)
        try stack.perform(synchronous: { $0.delete(ann) })
        #expect(ann.cs_isDeleted())
    }

    @Test(arguments: StoreKind.allCases)
    func aFailedCommitChangesNothingStoredOrSeen(_ kind: StoreKind) throws {
        let stack = DataStack(CoreStoreSchema(
            modelVersion: "U1",
            entities: [Entity<Renamed>("Renamed", uniqueConstraints: [[\Renamed.$code]])],
            versionLock: nil
        ))
        try stack.addStorageAndWait(kind.makeStore())
        try stack.perform(synchronous: { transaction in
            let r = transaction.create(Into<Renamed>())
            r.code = 1
            r.title = "first"
        })
        let first = try #require(try stack.fetchOne(From<Renamed>()))
        #expect {
            try stack.perform(synchronous: { transaction in
                try #require(transaction.edit(first)).title = "changed"
                transaction.create(Into<Renamed>()).code = 1
            })
        } throws: { error in
            guard case CoreStoreError.storageFailure(.uniqueConstraintViolation(let entity, let attributes, _)) = error else { return false }
            return entity == "Renamed" && attributes == ["code"]
        }
        #expect(first.title == "first")
        #expect(try stack.fetchCount(From<Renamed>()) == 1)
    }
}
