import Foundation
import Testing
import CoreStoreStorage
import CoreStoreConformance
import CoreStoreFirstPartyFactories

/// Every backend against the differential runner's reference model: 200 seeded sequences each.
@Suite("Differential random testing")
struct DifferentialRunnerTests {
    /// `DIFFERENTIAL_SEED`, `DIFFERENTIAL_SEQUENCES` and `DIFFERENTIAL_OPERATIONS` override the defaults.
    static let environment = ProcessInfo.processInfo.environment
    static let seed: UInt64 = environment["DIFFERENTIAL_SEED"].flatMap { UInt64($0) } ?? 20_261_123
    static let sequences = environment["DIFFERENTIAL_SEQUENCES"].flatMap { Int($0) } ?? 200
    static let operations = environment["DIFFERENTIAL_OPERATIONS"].flatMap { Int($0) } ?? 40

    /// Runs every sequence (going on after a mismatch); every mismatch fails the test.
    func check(_ factory: any StorageFactory) throws {
        defer { factory.cleanUp() }
        let start = Date()
        var runner = DifferentialRunner(seed: Self.seed, sequences: Self.sequences, operationsPerSequence: Self.operations)
        runner.continuesAfterMismatch = true
        let report = try runner.run(with: factory)
        print("Differential \(factory.name): \(report.sequencesRun) sequences, \(report.operationsRun) operations, \(report.mismatches.count) mismatches in \(String(format: "%.1f", Date().timeIntervalSince(start))) s; \(report.statistics)")
        for mismatch in report.mismatches {
            Issue.record("\(mismatch)")
        }
        #expect(report.sequencesRun == Self.sequences)
        // The run exercised writes, rejections, non-empty answers and errors.
        let stats = report.statistics
        #expect(stats.commits > Self.sequences * Self.operations / 10 && stats.rejectedWrites > Self.sequences / 4, "\(stats)")
        // Predicate constants are drawn mostly from values the model holds: most reads find something.
        #expect(stats.nonEmptyReads > stats.emptyReads && stats.readErrors > 0, "\(stats)")
        // Long-lived writers ran, and their commits took every merge path (with enough sequences to be sure).
        if Self.sequences >= 100 {
            let merging = stats.merging
            #expect(stats.staleWrites > Self.sequences && stats.staleCommits > stats.staleWrites / 2, "\(stats)")
            #expect(merging.keptStoredValues > 0 && merging.toManyMerges > 0 && merging.inverseFixes > 0, "\(stats)")
            #expect(merging.previousOwnerFixes > 0 && merging.deleteFixes > 0 && merging.danglingRejections > 0, "\(stats)")
        }
    }

    @Test("InMemoryStore agrees with the reference model") func inMemory() throws { try check(InMemoryFactory()) }
    @Test("SQLiteStore agrees with the reference model") func sqlite() throws { try check(SQLiteFactory()) }
    @Test("KeyValueStorage over MemoryKeyValueStore agrees with the reference model") func memoryKeyValue() throws { try check(MemoryKeyValueFactory()) }
    @Test("LMDBStore agrees with the reference model") func lmdb() throws { try check(LMDBFactory()) }
    @Test("LevelDBStore agrees with the reference model") func leveldb() throws { try check(LevelDBFactory()) }

    @Test("A planted bug is found and shrunk to a short reproduction that names the seed")
    func brokenBackend() throws {
        let report = try DifferentialRunner(seed: 7, sequences: 50).run(with: BrokenFactory())
        let mismatch = try #require(report.mismatch)
        print(mismatch)
        #expect(mismatch.operations.count <= 5, "\(mismatch)")
        #expect(mismatch.description.contains("seed 7"))
        guard case .fetch(let request) = mismatch.operations.last else {
            Issue.record("the reproduction should end in a fetch: \(mismatch)")
            return
        }
        #expect(!request.sortDescriptors.isEmpty)
        // The operations themselves are simplified too: the bug needs one sort key and nothing else.
        #expect(request.sortDescriptors.count == 1 && request.predicate == nil && request.limit == nil && request.offset == 0, "\(mismatch)")
        // The sequence reruns alone, from its own index.
        let again = try DifferentialRunner(seed: 7, sequences: 50).runSequence(mismatch.sequenceIndex, with: BrokenFactory())
        #expect(again?.operations == mismatch.operations)
    }

    @Test("A planted offset bug is found and shrunk")
    func ignoresOffset() throws {
        let report = try DifferentialRunner(seed: 99, sequences: 50).run(with: BrokenFactory(bug: .ignoresOffset))
        let mismatch = try #require(report.mismatch)
        print(mismatch)
        #expect(mismatch.operations.count <= 5, "\(mismatch)")
        #expect(mismatch.description.contains("seed 99"))
        guard case .fetch(let request) = mismatch.operations.last else {
            Issue.record("the reproduction should end in a fetch: \(mismatch)")
            return
        }
        #expect(request.offset > 0)
        #expect(request.predicate == nil && request.sortDescriptors.isEmpty && request.limit == nil, "\(mismatch)")
    }

    /// The bugs long-lived writers exist to catch: a store that writes updates whole loses
    /// changes other commits made meanwhile; one that ignores the base loses their to-many
    /// additions. Both are found, on a stale write, and shrunk.
    @Test("Planted merge bugs are found on a long-lived writer's commit", arguments: [PlantedBug.writesWholeRecords, .dropsBase])
    func plantedMergeBug(_ bug: PlantedBug) throws {
        let report = try DifferentialRunner(seed: 5, sequences: 100).run(with: BrokenFactory(bug: bug))
        let mismatch = try #require(report.mismatch)
        print(mismatch)
        #expect(mismatch.operations.count <= 8, "\(mismatch)")
        let stale = mismatch.operations.contains {
            if case .write(_, let note) = $0 { return note.hasPrefix(OperationGenerator.staleNotePrefix) }
            return false
        }
        #expect(stale, "the reproduction has a long-lived writer's commit: \(mismatch)")
    }

    /// Found by the runner (seed 20261123, sequence 116, before decimal and date attributes were
    /// added to the schema): SQLiteStore answers a grouped aggregate with `limit 0` with no rows
    /// instead of throwing the sum overflow AggregateEvaluator throws.
    @Test("Regression: SQLiteStore reports a sum overflow even when the window is empty")
    func sqliteLimitZeroOverflow() throws {
        let gadget = DifferentialSchema.schema.entity(named: "Gadget")?.attributes.count ?? 0
        let widget = DifferentialSchema.schema.entity(named: "Widget")?.attributes.count ?? 0
        func item(_ entity: String, _ key: Int64, _ rank: Int64, count: Int) -> Record {
            var attributes = [Value](repeating: .null, count: count)
            attributes[0] = .string("x")
            attributes[2] = .int(rank)
            return Record(id: RecordID(entity: entity, key: key), attributes: attributes, relationships: [[], []])
        }
        let operations: [DifferentialOperation] = [
            .write(ChangeSet(inserts: [item("Gadget", -1, .min, count: gadget), item("Widget", -2, .min, count: widget)]), note: "create"),
            .aggregate(AggregateRequest(entity: "Item", terms: [AggregateTerm(.sum, "rank")], limit: 0)),
        ]
        let factory = SQLiteFactory()
        defer { factory.cleanUp() }
        let runner = DifferentialRunner(seed: 0, sequences: 0)
        #expect(try runner.reproduce(operations, with: InMemoryFactory()) == nil)
        let disagreement = try runner.reproduce(operations, with: factory)
        #expect(disagreement == nil, "\(String(describing: disagreement))")
    }

    /// Found by the runner (seed 12, sequence 544, 600 sequences of 60 operations): an update
    /// whose identifier has an existing key but another entity (`Gadget#2` when record 2 is a
    /// `Widget`) is rejected with `recordNotFound` by the reference model, InMemoryStore and the
    /// key-value stores, but committed by SQLiteStore.
    @Test("Regression: SQLiteStore rejects an update whose identifier names the wrong entity")
    func sqliteWrongEntityUpdate() throws {
        let schema = DifferentialSchema.schema
        func blank(_ entity: String, _ key: Int64) -> Record {
            var attributes = [Value](repeating: .null, count: schema.entity(named: entity)?.attributes.count ?? 0)
            attributes[0] = .string("ann")
            return Record(id: RecordID(entity: entity, key: key), attributes: attributes, relationships: [[], []])
        }
        var update = blank("Gadget", 2)
        update.attributes[5] = .double(-4)
        let operations: [DifferentialOperation] = [
            .write(ChangeSet(inserts: [blank("Gadget", -1), blank("Widget", -2)]), note: "create"),
            .write(ChangeSet(updates: [RecordUpdate(record: update, changedKeys: ["weight"])]), note: "update with the wrong entity"),
            .fetch(FetchRequest(entity: "Item")),
        ]
        let factory = SQLiteFactory()
        defer { factory.cleanUp() }
        let runner = DifferentialRunner(seed: 0, sequences: 0)
        #expect(try runner.reproduce(operations, with: InMemoryFactory()) == nil)
        #expect(try runner.reproduce(operations, with: MemoryKeyValueFactory()) == nil)
        let disagreement = try runner.reproduce(operations, with: factory)
        #expect(disagreement == nil, "\(String(describing: disagreement))")
    }

    @Test("The same seed generates the same operations")
    func deterministic() throws {
        let a = DifferentialRunner.sequenceSeed(seed: 1, index: 3)
        #expect(a == DifferentialRunner.sequenceSeed(seed: 1, index: 3))
        #expect(a != DifferentialRunner.sequenceSeed(seed: 1, index: 4))
        let report = try DifferentialRunner(seed: 1, sequences: 3).run(with: InMemoryFactory())
        #expect(report.mismatch == nil)
        #expect(report.operationsRun == 3 * (40 + 4))
    }
}
