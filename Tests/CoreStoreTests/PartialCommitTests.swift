import Foundation
import Testing
@testable import CoreStore
import CoreStoreKeyValue

/// A commit that changes two stores, the second of which fails: what the first saved is kept and
/// followed, what the second did not save stays pending, and the error names both.
@Suite("Commits across stores")
struct PartialCommitTests {
    /// Notes in "Local" (an in-memory key-value store) and "Cloud" (one whose writes can fail).
    static func makeStack() throws -> (DataStack, FaultInjectingKeyValueStore<MemoryKeyValueStore>) {
        let stack = DataStack(makeConfiguredSchema())
        try stack.addStorageAndWait(KeyValueStorage(engine: MemoryKeyValueStore(), configuration: "Local"))
        let faulty = FaultInjectingKeyValueStore(base: MemoryKeyValueStore())
        try stack.addStorageAndWait(KeyValueStorage(engine: faulty, configuration: "Cloud"))
        return (stack, faulty)
    }

    static func texts(_ stack: DataStack, _ configuration: String) throws -> [String] {
        try stack.fetchAll(From<Note>(configuration).orderBy(.ascending(\.$text))).map(\.text)
    }

    /// The stores and the cause of a ``CoreStoreError/partialCommit``, or `nil` for another error.
    static func partial(_ error: any Error) -> (committed: [String?], failed: String?, cause: String)? {
        guard case .partialCommit(let committed, let failed, let cause)? = error as? CoreStoreError else { return nil }
        return (committed, failed, "\(cause)")
    }

    @Test func anUnsafeTransactionKeepsOnlyTheUnsavedStoresChangesAndCommitsThemOnce() throws {
        let (stack, faulty) = try Self.makeStack()
        let queue = makeDeliveryQueue()
        let monitor = try stack.monitorList(From<Note>("Local").orderBy(.ascending(\.$text)), deliveryQueue: queue)
        let transaction = stack.beginUnsafe()
        // The "Local" store's part is written first: its object was made first.
        transaction.create(Into<Note>("Local")).text = "local"
        transaction.create(Into<Note>("Cloud")).text = "cloud"
        faulty.failNext(.commit)
        do {
            try transaction.commitAndWait()
            Issue.record("the commit succeeded")
        } catch {
            let partial = try #require(Self.partial(error), "\(error)")
            #expect(partial.committed == ["Local"])
            #expect(partial.failed == "Cloud")
            #expect(partial.cause.contains("injected fault"))
            #expect("\(error)".contains("saved in the 'Local' store but not in the 'Cloud' store"))
        }
        queue.sync {}
        #expect(try Self.texts(stack, "Local") == ["local"])
        #expect(try Self.texts(stack, "Cloud") == [])
        #expect(monitor.objectsInAllSections().map(\.text) == ["local"], "the stack's monitors follow what was saved")
        #expect(transaction.hasChanges, "the note for the failed store is still pending")
        faulty.clearFaults()
        try transaction.commitAndWait()
        // The retry wrote only what was still pending: the local note is there once.
        #expect(try Self.texts(stack, "Local") == ["local"])
        #expect(try Self.texts(stack, "Cloud") == ["cloud"])
        #expect(!transaction.hasChanges)
    }

    @Test func updatesAndDeletesOfTheSavedStoreAreNotRepeated() throws {
        let (stack, faulty) = try Self.makeStack()
        try stack.perform(synchronous: { transaction in
            transaction.create(Into<Note>("Local")).text = "kept"
            transaction.create(Into<Note>("Local")).text = "gone"
        })
        let transaction = stack.beginUnsafe()
        // An insert first, so that the "Local" store's part is written first.
        transaction.create(Into<Note>("Local")).text = "new"
        transaction.create(Into<Note>("Cloud")).text = "cloud"
        let kept = try #require(try transaction.fetchOne(From<Note>("Local").where(\.$text == "kept")))
        kept.text = "edited"
        transaction.delete(try transaction.fetchOne(From<Note>("Local").where(\.$text == "gone")))
        faulty.failNext(.commit)
        #expect(throws: CoreStoreError.self) { try transaction.commitAndWait() }
        #expect(try Self.texts(stack, "Local") == ["edited", "new"])
        faulty.clearFaults()
        // Were the delete still pending, its record would be missing now and the retry would
        // fail; were the insert, there would be two "new" notes.
        try transaction.commitAndWait()
        #expect(try Self.texts(stack, "Local") == ["edited", "new"])
        #expect(try Self.texts(stack, "Cloud") == ["cloud"])
        #expect(kept.text == "edited")
    }

    /// Commits one note to each store in a closure transaction, the "Cloud" store's commit
    /// failing; returns the error (`nil` if the commit succeeded, which is recorded as an issue).
    static func commitOneNoteEach(_ stack: DataStack, _ faulty: FaultInjectingKeyValueStore<MemoryKeyValueStore>, cloudFirst: Bool) -> (any Error)? {
        faulty.failNext(.commit)
        do {
            try stack.perform(synchronous: { transaction in
                for configuration in cloudFirst ? ["Cloud", "Local"] : ["Local", "Cloud"] {
                    transaction.create(Into<Note>(configuration)).text = configuration.lowercased()
                }
            })
            Issue.record("the commit succeeded")
            return nil
        } catch {
            return error
        }
    }

    @Test func aClosureTransactionReportsThePartialCommit() throws {
        let (stack, faulty) = try Self.makeStack()
        let error = Self.commitOneNoteEach(stack, faulty, cloudFirst: false)
        #expect(error.flatMap(Self.partial)?.committed == ["Local"], "\(String(describing: error))")
        #expect(try Self.texts(stack, "Local") == ["local"])
        #expect(try Self.texts(stack, "Cloud") == [])
    }

    @Test func aFailureInTheFirstStoreSavesNothingAndIsNotPartial() throws {
        let (stack, faulty) = try Self.makeStack()
        let error = try #require(Self.commitOneNoteEach(stack, faulty, cloudFirst: true))
        #expect(Self.partial(error) == nil, "\(error)")
        #expect("\(error)".contains("injected fault"))
        #expect(try Self.texts(stack, "Local") == [])
        #expect(try Self.texts(stack, "Cloud") == [])
    }
}
