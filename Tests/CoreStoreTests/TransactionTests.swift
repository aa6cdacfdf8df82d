import Foundation
import Testing
@testable import CoreStore

@Suite("Transactions")
struct TransactionTests {
    @Test(arguments: StoreKind.allCases)
    func synchronousTransactionCommitsAndReturnsItsValue(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        let hasChanges = try stack.perform(synchronous: { transaction -> Bool in
            transaction.create(Into<Person>()).name = "Ann"
            return transaction.hasChanges
        })
        #expect(hasChanges)
        #expect(try stack.fetchCount(From<Person>()) == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func asynchronousTransactionReportsOnTheMainQueue(_ kind: StoreKind) async throws {
        let stack = try makeStack(kind)
        let result: Result<Int, CoreStoreError> = await onMain { done in
            stack.perform(
                asynchronous: { transaction -> Int in
                    transaction.create(Into<Person>()).name = "Ann"
                    return 7
                },
                completion: { result in
                    dispatchPrecondition(condition: .onQueue(.main))
                    done(result)
                }
            )
        }
        #expect(try result.get() == 7)
        #expect(try stack.fetchCount(From<Person>()) == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func asynchronousTransactionWithSuccessAndFailureHandlers(_ kind: StoreKind) async throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("A", 1), ("B", 2)])
        let deleted: Int = await onMain { done in
            stack.perform(
                asynchronous: { transaction in try transaction.deleteAll(From<Person>()) },
                success: { done($0) },
                failure: { _ in done(-1) }
            )
        }
        #expect(deleted == 2)
        let error: CoreStoreError? = await onMain { done in
            stack.perform(
                asynchronous: { transaction in try transaction.cancel() },
                success: { done(nil) },
                failure: { done($0) }
            )
        }
        guard case .userCancelled = error else { Issue.record("expected userCancelled, got \(String(describing: error))"); return }
    }

    @Test(arguments: StoreKind.allCases)
    func asyncAwaitTransaction(_ kind: StoreKind) async throws {
        let stack = try makeStack(kind)
        let count = try await stack.async.perform { transaction -> Int in
            transaction.create(Into<Person>()).name = "Ann"
            return try transaction.fetchCount(From<Person>())
        }
        #expect(count == 1)
        #expect(try stack.fetchCount(From<Person>()) == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func cancelSavesNothing(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        #expect {
            try stack.perform(synchronous: { transaction in
                transaction.create(Into<Person>()).name = "Ghost"
                try transaction.cancel()
            })
        } throws: { error in
            guard case CoreStoreError.userCancelled = error else { return false }
            return true
        }
        #expect(try stack.fetchCount(From<Person>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func errorThrownByTheClosureSurfacesAsUserErrorAndSavesNothing(_ kind: StoreKind) async throws {
        let stack = try makeStack(kind)
        struct Boom: Error {}
        let result: Result<Void, CoreStoreError> = await onMain { done in
            stack.perform(
                asynchronous: { transaction in
                    transaction.create(Into<Person>()).name = "Ghost"
                    throw Boom()
                },
                completion: { done($0) }
            )
        }
        guard case .userError(let error)? = result.failureValue else { Issue.record("expected userError"); return }
        #expect(error is Boom)
        #expect(try stack.fetchCount(From<Person>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func nestedSynchronousTransactionThrowsInsteadOfDeadlocking(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        #expect {
            try stack.perform(synchronous: { _ in
                try stack.perform(synchronous: { _ in })
            })
        } throws: { error in
            guard case CoreStoreError.transactionMisuse = error else { return false }
            return true
        }
    }

    @Test(arguments: StoreKind.allCases)
    func unsafeTransactionCommitsRepeatedlyAndKeepsItsObjects(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        let transaction = stack.beginUnsafe()
        let person = transaction.create(Into<Person>())
        person.name = "First"
        #expect(person.cs_id()?.isTemporary == true)
        try transaction.commitAndWait()
        #expect(person.cs_id()?.isTemporary == false)
        #expect(try stack.fetchOne(From<Person>())?.name == "First")
        person.name = "Second"
        try transaction.commitAndWait()
        #expect(try stack.fetchOne(From<Person>())?.name == "Second")
        #expect(!transaction.hasChanges)
    }

    /// After a commit, the objects of an unsafe transaction point at each other by their
    /// permanent identifiers, on both sides, and keep working for the next commit.
    @Test(arguments: StoreKind.allCases)
    func unsafeTransactionRelationshipsUsePermanentIdentifiersAfterCommit(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        let transaction = stack.beginUnsafe()
        let (ann, dog) = createAnnAndFido(in: transaction)
        ann.friends = [transaction.create(Into<Person>())]
        try transaction.commitAndWait()
        #expect(ann.relationships.joined().allSatisfy { !$0.isTemporary })
        #expect(dog.relationships.joined().allSatisfy { !$0.isTemporary })
        #expect(ann.committed?.relationships.joined().allSatisfy { !$0.isTemporary } == true)
        #expect(dog.master === ann)
        #expect(ann.pets == [dog])
        let bob = transaction.create(Into<Person>())
        bob.name = "Bob"
        dog.master = bob
        try transaction.commitAndWait()
        let stored = try #require(try stack.fetchOne(From<Dog>()))
        #expect(stored.master?.name == "Bob")
        #expect(try stack.fetchOne(From<Person>().where(\.$name == "Ann"))?.pets.isEmpty == true)
    }

    @Test(arguments: StoreKind.allCases)
    func unsafeTransactionAsyncCommitReportsOnMain(_ kind: StoreKind) async throws {
        let stack = try makeStack(kind)
        let transaction = stack.beginUnsafe()
        transaction.create(Into<Person>()).name = "A"
        let box = UncheckedBox(transaction)
        let error: CoreStoreError? = await onMain { done in box.value.commit { done($0) } }
        #expect(error == nil)
        #expect(try stack.fetchCount(From<Person>()) == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func unsafeRollbackDiscardsEveryPendingChange(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("Kept", 1)])
        let transaction = stack.beginUnsafe()
        let kept = try #require(try transaction.fetchOne(From<Person>()))
        kept.name = "Changed"
        transaction.create(Into<Person>()).name = "New"
        transaction.rollback()
        #expect(kept.name == "Kept")
        #expect(!transaction.hasChanges)
        #expect(try transaction.fetchCount(From<Person>()) == 1)
        try transaction.commitAndWait()
        #expect(try stack.fetchAll(From<Person>()).map(\.name) == ["Kept"])
    }

    @Test(arguments: StoreKind.allCases)
    func insertedUpdatedAndDeletedObjectsAreTracked(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("Old", 1), ("Gone", 2)])
        try stack.perform(synchronous: { transaction in
            let new = transaction.create(Into<Person>())
            let old = try #require(try transaction.fetchOne(From<Person>().where(\.$name == "Old")))
            old.age = 10
            let gone = try #require(try transaction.fetchOne(From<Person>().where(\.$name == "Gone")))
            transaction.delete(gone)
            #expect(transaction.insertedObjects(Person.self) == [new])
            #expect(transaction.updatedObjects(Person.self) == [old])
            #expect(transaction.deletedObjects(Person.self) == [gone])
            #expect(transaction.insertedObjectIDs() == Set([new.cs_id()!]))
            #expect(transaction.updatedObjectIDs(Person.self) == Set([old.cs_id()!]))
            #expect(transaction.deletedObjectIDs(Person.self) == Set([gone.cs_id()!]))
            #expect(transaction.insertedObjects(Dog.self).isEmpty)
        })
    }

    @Test(arguments: StoreKind.allCases)
    func editReturnsTheTransactionsInstance(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("Jane", 30)])
        let jane = try #require(try stack.fetchOne(From<Person>()))
        try stack.perform(synchronous: { transaction in
            let editable = try #require(transaction.edit(jane))
            #expect(editable !== jane)
            editable.age += 1
        })
        #expect(jane.age == 31, "objects of the stack follow commits")
    }

    @Test(arguments: StoreKind.allCases)
    func editOfAnObjectFromAnotherStackIsNil(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        let other = try makeStack(kind)
        try insertPeople(other, [("Stranger", 1)])
        let stranger = try #require(try other.fetchOne(From<Person>()))
        try stack.perform(synchronous: { transaction in
            #expect(transaction.edit(stranger) == nil)
            #expect(transaction.fetchExisting(stranger) == nil)
        })
    }

    @Test(arguments: StoreKind.allCases)
    func fetchExistingMovesObjectsAcrossContexts(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        let id = try stack.perform(synchronous: { transaction -> Person in
            let person = transaction.create(Into<Person>())
            person.name = "Moved"
            return person
        }).cs_id()
        let objectID = try #require(id)
        #expect(!objectID.isTemporary, "a committed object carries its permanent identifier")
        let fromStack: Person? = stack.fetchExisting(objectID)
        #expect(fromStack?.name == "Moved")
        let viaObject = try #require(fromStack.flatMap { stack.fetchExisting($0) })
        #expect(viaObject === fromStack)
        try stack.perform(synchronous: { transaction in
            let local: [Person] = transaction.fetchExisting([objectID])
            #expect(local.map(\.name) == ["Moved"])
            #expect(transaction.fetchExisting([fromStack!]).count == 1)
        })
    }

    @Test(arguments: StoreKind.allCases)
    func fetchExistingOfAnotherTransactionsUncommittedObjectIsNil(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        let first = stack.beginUnsafe()
        let second = stack.beginUnsafe()
        let fromFirst = first.create(Into<Person>())
        fromFirst.name = "First's"
        let fromSecond = second.create(Into<Person>())
        fromSecond.name = "Second's"
        let firstID = try #require(fromFirst.cs_id())
        #expect(firstID.isTemporary)
        #expect(firstID != fromSecond.cs_id(), "temporary identifiers never repeat across transactions")
        // Not committed, so not in the second transaction: neither its own insert nor anything else.
        #expect(second.fetchExisting(fromFirst) == nil)
        #expect(second.fetchExisting(firstID) as Person? == nil)
        #expect(second.edit(fromFirst) == nil)
        #expect(stack.fetchExisting(firstID) as Person? == nil)
        // Each transaction still finds its own.
        #expect(first.fetchExisting(firstID) as Person? === fromFirst)
        #expect(second.fetchExisting(fromSecond) === fromSecond)
        try second.commitAndWait()
        try first.commitAndWait()
        #expect(try stack.fetchAll(From<Person>().orderBy(.ascending(\.$name))).map(\.name) == ["First's", "Second's"])
    }

    @Test(arguments: StoreKind.allCases)
    func fetchExistingOfADeletedObjectIsNil(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("Doomed", 1)])
        let doomed = try #require(try stack.fetchOne(From<Person>()))
        let id = try #require(doomed.cs_id())
        try stack.perform(synchronous: { $0.delete(doomed) })
        #expect(stack.fetchExisting(id) as Person? == nil)
        #expect(stack.fetchExisting(doomed) == nil)
        #expect(doomed.cs_isDeleted())
    }

    @Test(arguments: StoreKind.allCases)
    func deletingTwiceIsHarmless(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("A", 1)])
        let a = try #require(try stack.fetchOne(From<Person>()))
        let counts = try stack.perform(synchronous: { transaction in
            [transaction.delete(a), transaction.delete(a), transaction.delete(nil as Person?)]
        })
        #expect(counts == [1, 0, 0])
        let second = try stack.perform(synchronous: { $0.delete(a) })
        #expect(second == 0)
        #expect(try stack.fetchCount(From<Person>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func deleteVariadicSequenceAndDeleteAll(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, [("A", 1), ("B", 2), ("C", 3), ("D", 40), ("E", 50)])
        let people = try stack.fetchAll(From<Person>().orderBy(.ascending(\.$name)))
        try stack.perform(synchronous: { transaction in
            #expect(transaction.delete(people[0], people[1]) == 2)
            #expect(transaction.delete([people[2]]) == 1)
            let olderThan45 = try transaction.deleteAll(From<Person>().where(\.$age > 45))
            let olderThan30 = try transaction.deleteAll(From<Person>(), \Person.$age > 30)
            #expect(olderThan45 == 1)
            #expect(olderThan30 == 1)
        })
        #expect(try stack.fetchCount(From<Person>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func insertThenDeleteInOneTransactionLeavesNothing(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try stack.perform(synchronous: { transaction in
            let p = transaction.create(Into<Person>())
            transaction.delete(p)
            let count = try transaction.fetchCount(From<Person>())
            #expect(count == 0)
        })
        #expect(try stack.fetchCount(From<Person>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func objectsOfAFinishedTransactionCannotBeChanged(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        let person = try stack.perform(synchronous: { transaction -> Person in
            transaction.create(Into<Person>())
        })
        person.name = "Too late"
        #expect(try stack.fetchOne(From<Person>())?.name == "")
    }

    @Test(arguments: StoreKind.allCases)
    func waitForAllObserversFalseStillCommits(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try stack.perform(synchronous: { $0.create(Into<Person>()).name = "X" }, waitForAllObservers: false)
        #expect(try stack.fetchCount(From<Person>()) == 1)
    }
}
