import Foundation
import Testing
@testable import CoreStore
import CoreStoreStorage

/// A fetch tells its store which records' objects the context already holds
/// (`FetchRequest.knownRecords`), so that a repeated fetch does not decode them again. The
/// objects it returns must be exactly those a fetch without the hint returns.
@Suite("Fetches of objects the context holds")
struct KnownRecordsFetchTests {
    /// A repeated fetch returns the held objects, with every commit since merged in, and makes
    /// whole objects for the records it had not made yet or had dropped. With 200 people the
    /// unsorted fetches hold more than the 64 records for which SQL stores ask for the matching
    /// keys first.
    @Test(arguments: StoreKind.allCases)
    func aRepeatedFetchReturnsCurrentObjects(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, (0..<200).map { ("p\($0)", $0) })
        var firstHalf: [Person]? = try stack.fetchAll(From<Person>().where(\.$age < 100).orderBy(.ascending(\.$age)))
        #expect(firstHalf?.count == 100)
        try stack.perform(synchronous: { transaction in
            for person in try transaction.fetchAll(From<Person>().where(\.$age >= 50 && \.$age < 150)) {
                person.nickname = "n\(person.age)"
            }
        })
        let all = try stack.fetchAll(From<Person>().orderBy(.ascending(\.$age)))
        #expect(all.map(\.name) == (0..<200).map { "p\($0)" })
        #expect(all.map(\.nickname) == (0..<200).map { (50..<150).contains($0) ? "n\($0)" : nil })
        #expect(zip(all.prefix(100), firstHalf ?? []).allSatisfy { $0 === $1 }, "the held objects were not returned")
        firstHalf = nil
        let again = try stack.fetchAll(From<Person>().where(\.$age >= 25 && \.$age < 175))
        #expect(again.map(\.name) == (25..<175).map { "p\($0)" })
        #expect(again.map(\.age) == Array(25..<175))
        #expect(again.map(\.nickname) == (25..<175).map { (50..<150).contains($0) ? "n\($0)" : nil })
        #expect(zip(again, all.dropFirst(25)).allSatisfy { $0 === $1 }, "the held objects were not returned")
    }

    /// Readers on several threads fetch overlapping ranges and drop them (so sweeps drop
    /// objects and later fetches make them again) while a writer adds records: every object is
    /// whole, whichever snapshot of the held keys its fetch passed down.
    /// Unsorted fetches are read keys first on SQL stores once the readers hold most matches.
    @Test(arguments: [StoreKind.lmdb, .sqlite], [true, false])
    func readersOnManyThreadsGetWholeObjects(_ kind: StoreKind, sorted: Bool) throws {
        let stack = try makeStack(kind)
        try insertPeople(stack, (0..<3_000).map { ("p\($0)", $0) })
        let failures = MisreadingStore.Counter()
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for round in 0..<25 {
                do {
                    if thread == 3 {
                        let first = 10_000 + round * 20
                        try insertPeople(stack, (first..<first + 20).map { ("p\($0)", $0) })
                        continue
                    }
                    let low = round % 5 == 4 ? 10_000 : (thread * 700 + round * 97) % 2_500
                    let matching = From<Person>().where(\.$age >= low && \.$age < low + 500)
                    let people = try sorted ? stack.fetchAll(matching.orderBy(.ascending(\.$age))) : stack.fetchAll(matching)
                    // The writer's range may still be empty; the others hold 500 people each.
                    if (low < 10_000 && people.count != 500) || people.contains(where: { $0.name != "p\($0.age)" }) { failures.add() }
                } catch {
                    failures.add()
                }
            }
        }
        #expect(failures.value == 0)
        #expect(try stack.fetchCount(From<Person>()) == 3_500)
    }

    /// A backend that answers records by identifier although the context does not hold them
    /// (or while leaving stages to the core, which the contract forbids) is read again without
    /// the hint: the objects are still whole.
    @Test(arguments: [MisreadingStore.Mistake.omitsEveryRecord, .omitsWithPendingStages])
    func aBackendThatOmitsTooMuchIsReadAgain(_ mistake: MisreadingStore.Mistake) throws {
        let store = MisreadingStore(mistake: mistake)
        let stack = DataStack(makeSchema())
        try stack.addStorageAndWait(store)
        try insertPeople(stack, (0..<10).map { ("p\($0)", $0) })
        let held = try #require(try stack.fetchOne(From<Person>().where(\.$age == 3)))
        let all = try stack.fetchAll(From<Person>().orderBy(.ascending(\.$age)))
        #expect(store.hintedFetches.value > 0, "no fetch told the store of the held object")
        #expect(all.map(\.name) == (0..<10).map { "p\($0)" })
        #expect(all.map(\.age) == Array(0..<10))
        #expect(all[3] === held)
    }
}

/// An in-memory store that misreads ``FetchRequest/knownRecords`` in one of two ways.
final class MisreadingStore: StorageInterface, @unchecked Sendable {
    enum Mistake: Sendable {
        /// Every record of a hinted fetch comes back by identifier alone.
        case omitsEveryRecord
        /// Known records come back by identifier alone while the filter is left to the core.
        case omitsWithPendingStages
    }

    let base = InMemoryStore()
    let mistake: Mistake
    /// How many fetches came with a hint.
    let hintedFetches = Counter()

    init(mistake: Mistake) { self.mistake = mistake }

    var configuration: String? { base.configuration }
    var capabilities: StorageCapabilities { base.capabilities }
    var storeDescription: String { "MisreadingStore(\(mistake))" }
    func open(schema: StoreSchema) throws -> StoredMetadata? { try base.open(schema: schema) }
    func write(_ changes: ChangeSet) throws -> CommitInfo { try base.write(changes) }
    func erase() throws { try base.erase() }
    func close() { base.close() }
    func read<T>(_ body: (any StorageReader) throws -> T) throws -> T {
        try base.read { try body(Reader(base: $0, store: self)) }
    }

    struct Reader: StorageReader {
        let base: any StorageReader
        let store: MisreadingStore
        func records(_ ids: [RecordID]) throws -> [Record?] { try base.records(ids) }
        func count(_ request: FetchRequest) throws -> Int { try base.count(request) }
        func fetch(_ request: FetchRequest) throws -> FetchResult {
            var result = try base.fetch(request)
            let known = request.knownRecords
            guard !known.isEmpty else { return result }
            store.hintedFetches.add()
            switch store.mistake {
            case .omitsEveryRecord:
                result.records = result.records.map { Record(identifierOnly: $0.id) }
            case .omitsWithPendingStages:
                result.records = result.records.map { known.contains($0.id.key) ? Record(identifierOnly: $0.id) : $0 }
                result.pending.insert(.filter)
            }
            return result
        }
    }

    /// A count shared by the reads.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        var value: Int { lock.withLock { count } }
        func add() { lock.withLock { count += 1 } }
    }
}
