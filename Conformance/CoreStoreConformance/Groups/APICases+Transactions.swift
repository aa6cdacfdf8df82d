import Foundation
import CoreStore
import CoreStoreStorage

/// An account with a unique email, for the transaction cases of the `api` group.
final class ConformanceAccount: CoreStoreObject {
    @Field.Stored("email") var email: String = ""
    @Field.Stored("name") var name: String = ""
    @Field.Stored("counter") var counter: Int = 0
}

/// An error thrown by a transaction closure.
struct ConformanceClosureError: Error, Equatable {}

/// Counts transactions running at once (shared with the transaction queue's thread).
final class ConcurrencyProbe: @unchecked Sendable {
    private let lock = NSLock()
    private var running = 0
    private var _maximum = 0
    private var _ran = 0

    /// The most transactions seen running at once.
    var maximum: Int { lock.withLock { _maximum } }
    /// How many transactions ran.
    var ran: Int { lock.withLock { _ran } }

    func enter() {
        lock.withLock {
            running += 1
            _ran += 1
            _maximum = max(_maximum, running)
        }
    }

    func leave() {
        lock.withLock { running -= 1 }
    }
}

extension APICases {
    static func accountsSchema() -> CoreStoreSchema {
        CoreStoreSchema(modelVersion: "V1", entities: [Entity<ConformanceAccount>("Account", uniqueConstraints: [[\ConformanceAccount.$email]])])
    }

    /// A stack with two accounts, `a@x` (Ann) and `b@x` (Bob).
    static func accountsStack(_ ctx: ConformanceContext) throws -> (DataStack, any StorageInterface) {
        let (stack, store) = try makeStack(ctx, accountsSchema())
        try stack.perform(synchronous: { t in
            for (email, name) in [("a@x", "Ann"), ("b@x", "Bob")] {
                let account = t.create(Into<ConformanceAccount>())
                account.email = email
                account.name = name
            }
        })
        return (stack, store)
    }

    /// The `email:name` of every account, as the stack and as the store itself answer.
    static func expectAccounts(_ ctx: ConformanceContext, _ stack: DataStack, _ store: any StorageInterface, _ expected: [String], _ what: String) throws {
        let fetched = try stack.fetchAll(From<ConformanceAccount>().orderBy(.ascending(\.$email))).map { "\($0.email):\($0.name)" }
        try ctx.expectEqual(fetched, expected, "accounts fetched from the DataStack \(what)")
        // The store's own answer, independent of attribute order: each record's strings, sorted.
        let stored = try store.read { try $0.fetch(FetchRequest(entity: "Account")).records }
        let rows = stored.map { record in
            record.attributes.compactMap { value -> String? in
                if case .string(let s) = value { return s }
                return nil
            }.sorted().joined(separator: "|")
        }.sorted()
        let expectedRows = expected.map { $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init).sorted().joined(separator: "|") }.sorted()
        try ctx.expectEqual(rows, expectedRows, "strings of the accounts held by the store \(what)")
    }

    static func isUserCancelled(_ error: CoreStoreError) -> Bool {
        if case .userCancelled = error { return true }
        return false
    }

    static func isUniqueViolation(_ error: CoreStoreError) -> Bool {
        if case .storageFailure(.uniqueConstraintViolation(let entity, let attributes, _)) = error { return entity == "Account" && attributes == ["email"] }
        return false
    }

    static let transactionCases: [ConformanceCase] = [
        c("a cancelled transaction saves nothing") { ctx in
            let (stack, store) = try accountsStack(ctx)
            try expectCoreStoreError(ctx, "a transaction that calls cancel()", matching: isUserCancelled) {
                try stack.perform(synchronous: { t in
                    t.create(Into<ConformanceAccount>()).email = "c@x"
                    for account in try t.fetchAll(From<ConformanceAccount>()) { account.name = "Changed" }
                    try t.cancel()
                })
            }
            try expectAccounts(ctx, stack, store, ["a@x:Ann", "b@x:Bob"], "after a cancelled transaction")
        },
        c("a throwing transaction saves nothing and reports userError") { ctx in
            let (stack, store) = try accountsStack(ctx)
            let error = try expectCoreStoreError(ctx, "a transaction whose closure throws", matching: {
                if case .userError(let inner) = $0 { return inner is ConformanceClosureError }
                return false
            }) {
                try stack.perform(synchronous: { t in
                    _ = try t.deleteAll(From<ConformanceAccount>())
                    t.create(Into<ConformanceAccount>()).email = "c@x"
                    throw ConformanceClosureError()
                })
            }
            try ctx.expect(error.description.contains("nothing was saved"), "the error does not say that nothing was saved: \(error)")
            try expectAccounts(ctx, stack, store, ["a@x:Ann", "b@x:Bob"], "after a throwing transaction")
        },
        c("a failed commit leaves the read context and the store unchanged") { ctx in
            let (stack, store) = try accountsStack(ctx)
            let ann = try stack.fetchOne(From<ConformanceAccount>().where(\.$email == "a@x"))
            try expectCoreStoreError(ctx, "a commit that breaks the unique email", matching: isUniqueViolation) {
                try stack.perform(synchronous: { t in
                    for account in try t.fetchAll(From<ConformanceAccount>()) { account.name = "Renamed" }
                    t.create(Into<ConformanceAccount>()).email = "b@x"
                })
            }
            try ctx.expectEqual(ann?.name, "Ann", "name of an object fetched before the failed commit")
            try expectAccounts(ctx, stack, store, ["a@x:Ann", "b@x:Bob"], "after a failed commit")
            try stack.perform(synchronous: { t in t.create(Into<ConformanceAccount>()).email = "c@x" })
            try expectAccounts(ctx, stack, store, ["a@x:Ann", "b@x:Bob", "c@x:"], "after a commit that follows the failed one")
        },
        c("concurrent synchronous transactions run one at a time and all land") { ctx in
            let (stack, store) = try accountsStack(ctx)
            let probe = ConcurrencyProbe()
            let failures = ConcurrencyProbe()
            DispatchQueue.concurrentPerform(iterations: 20) { _ in
                do {
                    try stack.perform(synchronous: { t in
                        probe.enter()
                        defer { probe.leave() }
                        for account in try t.fetchAll(From<ConformanceAccount>().where(\.$email == "a@x")) { account.counter += 1 }
                    })
                } catch {
                    failures.enter()
                }
            }
            try ctx.expectEqual(failures.ran, 0, "failed transactions")
            try ctx.expectEqual(probe.maximum, 1, "transactions running at once")
            try ctx.expectEqual(try stack.fetchOne(From<ConformanceAccount>().where(\.$email == "a@x"))?.counter, 20, "counter after 20 increments")
            try expectAccounts(ctx, stack, store, ["a@x:Ann", "b@x:Bob"], "after the increments")
        },
        c("concurrent asynchronous transactions run one at a time and all land") { ctx in
            let (stack, _) = try accountsStack(ctx)
            let probe = ConcurrencyProbe()
            DispatchQueue.concurrentPerform(iterations: 20) { _ in
                stack.perform(asynchronous: { t in
                    probe.enter()
                    defer { probe.leave() }
                    for account in try t.fetchAll(From<ConformanceAccount>().where(\.$email == "b@x")) { account.counter += 1 }
                }, completion: { _ in })
            }
            // Transactions run in order on one queue: a synchronous one queued last runs after all.
            try stack.perform(synchronous: { _ in })
            try ctx.expectEqual(probe.ran, 20, "asynchronous transactions that ran")
            try ctx.expectEqual(probe.maximum, 1, "transactions running at once")
            try ctx.expectEqual(try stack.fetchOne(From<ConformanceAccount>().where(\.$email == "b@x"))?.counter, 20, "counter after 20 increments")
        },
        c("a transaction sees its own changes; the stack sees them only after the commit") { ctx in
            let (stack, _) = try accountsStack(ctx)
            let inside = try stack.perform(synchronous: { t -> [Int] in
                t.create(Into<ConformanceAccount>()).email = "c@x"
                for account in try t.fetchAll(From<ConformanceAccount>().where(\.$email == "a@x")) { account.name = "Ann 2" }
                return [try t.fetchCount(From<ConformanceAccount>()), try t.fetchCount(From<ConformanceAccount>().where(\.$name == "Ann 2")),
                        try stack.fetchCount(From<ConformanceAccount>()), try stack.fetchCount(From<ConformanceAccount>().where(\.$name == "Ann 2"))]
            })
            try ctx.expectEqual(inside, [3, 1, 2, 0], "counts inside the transaction (its own, then the stack's)")
            try ctx.expectEqual(try stack.fetchCount(From<ConformanceAccount>().where(\.$name == "Ann 2")), 1, "accounts named 'Ann 2' after the commit")
        },
        c("perform(synchronous:) inside a transaction throws transactionMisuse instead of deadlocking") { ctx in
            let (stack, store) = try accountsStack(ctx)
            let nested = try stack.perform(synchronous: { t -> CoreStoreError? in
                t.create(Into<ConformanceAccount>()).email = "c@x"
                do {
                    try stack.perform(synchronous: { $0.create(Into<ConformanceAccount>()).email = "d@x" })
                    return nil
                } catch let error as CoreStoreError {
                    return error
                }
            })
            guard case .transactionMisuse? = nested else { try ctx.fail("the nested perform(synchronous:) gave \(String(describing: nested)), expected transactionMisuse") }
            try expectAccounts(ctx, stack, store, ["a@x:Ann", "b@x:Bob", "c@x:"], "after the outer transaction")
        },
        c("an object returned by a transaction is found in the stack with a permanent identifier") { ctx in
            let (stack, _) = try accountsStack(ctx)
            let created = try stack.perform(synchronous: { t -> ConformanceAccount in
                let account = t.create(Into<ConformanceAccount>())
                account.email = "c@x"
                return account
            })
            let id = created.cs_id()
            try ctx.expect(id.map { !$0.isTemporary } ?? false, "the returned object's identifier \(String(describing: id)) is not permanent")
            try ctx.expectEqual(stack.fetchExisting(created)?.email, "c@x", "email of the object found from the returned one")
            try ctx.expectEqual(try stack.fetchObjectID(From<ConformanceAccount>().where(\.$email == "c@x")), id, "identifier fetched for c@x")
        },
        c("beginUnsafe: commitAndWait saves, rollback discards") { ctx in
            let (stack, store) = try accountsStack(ctx)
            let unsafe = stack.beginUnsafe()
            let carol = unsafe.create(Into<ConformanceAccount>())
            carol.email = "c@x"
            carol.name = "Carol"
            try unsafe.commitAndWait()
            try ctx.expect(carol.cs_id().map { !$0.isTemporary } ?? false, "an unsafe transaction's object has no permanent identifier after the commit")
            carol.name = "Caroline"
            unsafe.create(Into<ConformanceAccount>()).email = "d@x"
            try ctx.expect(unsafe.hasChanges, "the unsafe transaction reports no pending changes")
            unsafe.rollback()
            try ctx.expectEqual(carol.name, "Carol", "name after rollback")
            try ctx.expect(!unsafe.hasChanges, "the unsafe transaction still has changes after rollback")
            try unsafe.commitAndWait()
            try expectAccounts(ctx, stack, store, ["a@x:Ann", "b@x:Bob", "c@x:Carol"], "after an unsafe commit and a rollback")
        },
        c("beginUnsafe: a failed commitAndWait keeps the pending changes for a retry") { ctx in
            let (stack, store) = try accountsStack(ctx)
            let unsafe = stack.beginUnsafe()
            let dup = unsafe.create(Into<ConformanceAccount>())
            dup.email = "a@x"
            dup.name = "Dup"
            try expectCoreStoreError(ctx, "an unsafe commit that breaks the unique email", matching: isUniqueViolation) { try unsafe.commitAndWait() }
            try ctx.expect(unsafe.hasChanges, "the pending changes were dropped by the failed commit")
            try expectAccounts(ctx, stack, store, ["a@x:Ann", "b@x:Bob"], "after the failed unsafe commit")
            dup.email = "z@x"
            try unsafe.commitAndWait()
            try expectAccounts(ctx, stack, store, ["a@x:Ann", "b@x:Bob", "z@x:Dup"], "after the retried unsafe commit")
        },
    ]
}
