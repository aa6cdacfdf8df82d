import Foundation
import CoreStoreStorage

/// The first operation on which a backend disagreed with the ``ReferenceModel``, with a shrunk
/// reproduction.
public struct DifferentialMismatch: Sendable, CustomStringConvertible {
    /// The backend's name (``StorageFactory/name``).
    public var backend: String
    /// The run's seed.
    public var seed: UInt64
    /// The index of the failing sequence in the run.
    public var sequenceIndex: Int
    /// The sequence's own seed (``DifferentialRunner/sequenceSeed(seed:index:)``).
    public var sequenceSeed: UInt64
    /// How many operations the sequence had run up to and including the mismatch.
    public var originalLength: Int
    /// The shrunk reproduction: replayed on a fresh store, its last operation disagrees.
    public var operations: [DifferentialOperation]
    /// What the reference model answered to the last operation.
    public var expected: String
    /// What the backend answered.
    public var actual: String

    /// The seed, the sequence and the reproduction, one operation per line.
    public var description: String {
        var lines = [
            "Differential mismatch on \(backend): seed \(seed), sequence \(sequenceIndex) (sequence seed \(sequenceSeed)),",
            "shrunk from \(originalLength) to \(operations.count) operations:",
        ]
        for (i, operation) in operations.enumerated() { lines.append("  \(i + 1). \(operation)") }
        lines.append("expected (reference): \(expected)")
        lines.append("actual (\(backend)): \(actual)")
        lines.append("Rerun: DifferentialRunner(seed: \(seed), sequences: \(sequenceIndex + 1)) or runSequence(\(sequenceIndex), with:).")
        return lines.joined(separator: "\n")
    }
}

/// How the operations of a run turned out (counted on the reference model's side).
public struct DifferentialStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Change sets committed.
    public var commits = 0
    /// Change sets rejected (missing record, uniqueness violation, …).
    public var rejectedWrites = 0
    /// Fetches, counts, aggregates and lookups that returned something non-empty.
    public var nonEmptyReads = 0
    /// Fetches, counts, aggregates and lookups that returned nothing.
    public var emptyReads = 0
    /// Reads that threw (the store had to throw the same error).
    public var readErrors = 0
    /// Writes of long-lived writers: change sets built on a snapshot some operations old.
    public var staleWrites = 0
    /// Of those, the ones committed.
    public var staleCommits = 0
    /// The merge paths the reference model took (summed over sequences).
    public var merging = MergeCounters()

    /// Creates empty statistics.
    public init() {}

    /// Adds `other` to these statistics.
    public mutating func add(_ other: DifferentialStatistics) {
        commits += other.commits
        rejectedWrites += other.rejectedWrites
        nonEmptyReads += other.nonEmptyReads
        emptyReads += other.emptyReads
        readErrors += other.readErrors
        staleWrites += other.staleWrites
        staleCommits += other.staleCommits
        merging.add(other.merging)
    }

    /// `commits 1, rejected 2, …`.
    public var description: String {
        "commits \(commits), rejected writes \(rejectedWrites), non-empty reads \(nonEmptyReads), empty reads \(emptyReads), read errors \(readErrors); "
            + "stale writes \(staleWrites) (committed \(staleCommits)), \(merging)"
    }
}

/// What a differential run did.
public struct DifferentialReport: Sendable, CustomStringConvertible {
    /// The number of sequences run (the failing one included).
    public var sequencesRun: Int
    /// The number of operations applied to the backend, shrinking replays excluded.
    public var operationsRun: Int
    /// The first mismatch, or `nil` when the backend agreed everywhere.
    public var mismatch: DifferentialMismatch? { mismatches.first }
    /// Every mismatch found: at most one, unless ``DifferentialRunner/continuesAfterMismatch``.
    public var mismatches: [DifferentialMismatch] = []
    /// How the operations turned out, to show what the run exercised.
    public var statistics = DifferentialStatistics()

    /// A one-line summary, or the mismatch.
    public var description: String {
        mismatches.isEmpty ? "\(sequencesRun) sequences, \(operationsRun) operations, no mismatch; \(statistics)" : mismatches.map(\.description).joined(separator: "\n\n")
    }
}

/// Differential random testing: seeded sequences of writes, fetches, counts, aggregates and
/// lookups run against a backend and against the suite's own ``ReferenceModel``; every answer must
/// match (records with their ids, values and order; counts; aggregate rows; errors by case, and
/// by value where the contract fixes it).
///
/// ```swift
/// let report = try DifferentialRunner(seed: 42, sequences: 200).run(with: MyBackendFactory())
/// if let mismatch = report.mismatch { print(mismatch) }
/// ```
public struct DifferentialRunner: Sendable {
    /// The run's seed.
    public let seed: UInt64
    /// How many sequences to run.
    public let sequences: Int
    /// How many random operations each sequence has (final whole-state fetches come on top).
    public let operationsPerSequence: Int
    /// The most replays shrinking may spend.
    public var shrinkBudget = 3_000
    /// Whether the run goes on with the next sequence after a mismatch (to collect every
    /// failing sequence) instead of stopping at the first.
    public var continuesAfterMismatch = false

    /// A runner of `sequences` sequences of `operationsPerSequence` operations from `seed`.
    public init(seed: UInt64, sequences: Int, operationsPerSequence: Int = 40) {
        self.seed = seed
        self.sequences = sequences
        self.operationsPerSequence = operationsPerSequence
    }

    /// The seed of sequence `index` of a run with `seed`, so one sequence can be rerun alone.
    public static func sequenceSeed(seed: UInt64, index: Int) -> UInt64 {
        var mixer = SplitMix64(seed: seed ^ (UInt64(truncatingIfNeeded: index) &* 0xD1B5_4A32_D192_ED03))
        return mixer.next()
    }

    /// Runs every sequence against fresh stores from `factory`; stops at the first mismatch.
    /// Throws only when the factory cannot make or open a store.
    public func run(with factory: any StorageFactory, progress: (Int) -> Void = { _ in }) throws -> DifferentialReport {
        var report = DifferentialReport(sequencesRun: 0, operationsRun: 0)
        for index in 0..<max(sequences, 0) {
            let (operations, mismatch, statistics) = try runSequenceReturningCount(index, with: factory)
            report.statistics.add(statistics)
            report.sequencesRun += 1
            report.operationsRun += operations
            progress(report.sequencesRun)
            if let mismatch {
                report.mismatches.append(mismatch)
                if !continuesAfterMismatch { break }
            }
        }
        return report
    }

    /// Runs sequence `index` alone (the same operations as in `run(with:)`); the mismatch, if any.
    public func runSequence(_ index: Int, with factory: any StorageFactory) throws -> DifferentialMismatch? {
        try runSequenceReturningCount(index, with: factory).1
    }

    private func runSequenceReturningCount(_ index: Int, with factory: any StorageFactory) throws -> (Int, DifferentialMismatch?, DifferentialStatistics) {
        let sequenceSeed = Self.sequenceSeed(seed: seed, index: index)
        var generator = OperationGenerator(seed: sequenceSeed)
        var session = try Session(factory: factory)
        defer { session.finish() }
        var operations: [DifferentialOperation] = []
        let total = operationsPerSequence + OperationGenerator.finalChecks().count
        var finals = OperationGenerator.finalChecks()
        for step in 0..<total {
            let operation = step < operationsPerSequence ? generator.next(model: session.model) : finals.removeFirst()
            operations.append(operation)
            if session.apply(operation) != nil {
                session.finish()
                let shrunk = try shrink(operations, factory: factory)
                let final = try replay(shrunk, factory: factory)
                return (operations.count, DifferentialMismatch(
                    backend: factory.name, seed: seed, sequenceIndex: index, sequenceSeed: sequenceSeed,
                    originalLength: operations.count, operations: shrunk,
                    expected: final?.expected ?? "?", actual: final?.actual ?? "? (the shrunk sequence no longer fails)"
                ), session.statistics)
            }
        }
        return (operations.count, nil, session.statistics)
    }

    /// Replays a reproduction (such as ``DifferentialMismatch/operations``) on a fresh store from
    /// `factory`: the first operation's index and both answers where the store disagrees, `nil`
    /// when it agrees throughout.
    public func reproduce(_ operations: [DifferentialOperation], with factory: any StorageFactory) throws -> (index: Int, expected: String, actual: String)? {
        try replay(operations, factory: factory).map { ($0.index, $0.expected, $0.actual) }
    }

    /// Replays `operations` on a fresh store and model; the first disagreement, if any.
    func replay(_ operations: [DifferentialOperation], factory: any StorageFactory) throws -> Disagreement? {
        var session = try Session(factory: factory)
        defer { session.finish() }
        for (i, operation) in operations.enumerated() {
            if var disagreement = session.apply(operation) {
                disagreement.index = i
                return disagreement
            }
        }
        return nil
    }

    /// Shrinks a failing sequence: drops halves, then smaller chunks, then single operations
    /// while a replay still disagrees; then simplifies the operations that are left, one at a
    /// time (``OperationSimplifier``: a compound predicate replaced by one of its parts, sort
    /// keys, limits and offsets dropped, …); and drops again while simplifying helped. The
    /// result ends at the operation that disagrees.
    func shrink(_ operations: [DifferentialOperation], factory: any StorageFactory) throws -> [DifferentialOperation] {
        let budget = ShrinkBudget(shrinkBudget)
        func failingPrefix(_ candidate: [DifferentialOperation]) throws -> [DifferentialOperation]? {
            budget.remaining -= 1
            guard let disagreement = try replay(candidate, factory: factory) else { return nil }
            return Array(candidate[...disagreement.index])
        }
        guard var current = try failingPrefix(operations) else { return operations }
        while budget.remaining > 0 {
            current = try dropOperations(current, budget: budget, failingPrefix)
            let simplified = try simplifyOperations(current, budget: budget, failingPrefix)
            if simplified == current { break }
            current = simplified
        }
        return current
    }

    /// Drops chunks of operations (halves first, single ones last) while the sequence still fails.
    private func dropOperations(
        _ operations: [DifferentialOperation], budget: ShrinkBudget, _ failingPrefix: ([DifferentialOperation]) throws -> [DifferentialOperation]?
    ) throws -> [DifferentialOperation] {
        var current = operations
        var chunk = max(current.count / 2, 1)
        while budget.remaining > 0 {
            var removedAny = false
            var start = 0
            while start < current.count, budget.remaining > 0 {
                var candidate = current
                candidate.removeSubrange(start..<min(start + chunk, candidate.count))
                if !candidate.isEmpty, let prefix = try failingPrefix(candidate) {
                    current = prefix
                    removedAny = true
                } else {
                    start += chunk
                }
            }
            if chunk == 1 && !removedAny { break }
            if !removedAny { chunk = max(chunk / 2, 1) }
        }
        return current
    }

    /// Replaces operations by simpler variants, last operation first, while the sequence still fails.
    private func simplifyOperations(
        _ operations: [DifferentialOperation], budget: ShrinkBudget, _ failingPrefix: ([DifferentialOperation]) throws -> [DifferentialOperation]?
    ) throws -> [DifferentialOperation] {
        var current = operations
        var index = current.count - 1
        while index >= 0, budget.remaining > 0 {
            var simplified = false
            for variant in OperationSimplifier.variants(of: current[index]) where budget.remaining > 0 {
                guard OperationSimplifier.size(variant) < OperationSimplifier.size(current[index]) else { continue }
                var candidate = current
                candidate[index] = variant
                if let prefix = try failingPrefix(candidate) {
                    current = prefix
                    simplified = true
                    break
                }
            }
            if !simplified { index -= 1 }
            index = min(index, current.count - 1)
        }
        return current
    }
}

/// The replays shrinking may still spend, shared by its steps.
final class ShrinkBudget {
    var remaining: Int
    init(_ remaining: Int) { self.remaining = remaining }
}

/// One disagreement between a store and the reference model.
struct Disagreement {
    var index = 0
    var expected: String
    var actual: String
}

/// A fresh store and a fresh reference model, fed the same operations.
private struct Session {
    let store: any StorageInterface
    let schema = DifferentialSchema.schema
    var model = ReferenceModel(schema: DifferentialSchema.schema)
    var lastSequence: UInt64?
    private var counts = DifferentialStatistics()
    private var finished = false

    /// The counts so far, with the model's merge counters.
    var statistics: DifferentialStatistics {
        var result = counts
        result.merging = model.counters
        return result
    }

    init(factory: any StorageFactory) throws {
        store = try factory.makeStorage(configuration: nil)
        _ = try store.open(schema: schema)
    }

    mutating func finish() {
        guard !finished else { return }
        finished = true
        try? store.erase()
        store.close()
    }

    private static func catching<T>(_ body: () throws -> T) -> Result<T, StorageError> {
        do { return .success(try body()) } catch let error as StorageError { return .failure(error) } catch {
            return .failure(.engine(code: -1, message: "not a StorageError: \(error)"))
        }
    }

    private static func render<T>(_ result: Result<T, StorageError>, _ show: (T) -> String) -> String {
        switch result {
        case .success(let value): return show(value)
        case .failure(let error): return "error \(error)"
        }
    }

    /// Compares two read results: values by `same`, errors by ``ReferenceModel/errorsMatch(expected:actual:)``.
    private static func compare<T>(_ expected: Result<T, StorageError>, _ actual: Result<T, StorageError>,
                                   same: (T, T) -> Bool, show: (T) -> String) -> Disagreement? {
        switch (expected, actual) {
        case (.success(let e), .success(let a)) where same(e, a): return nil
        case (.failure(let e), .failure(let a)) where ReferenceModel.errorsMatch(expected: e, actual: a): return nil
        default: return Disagreement(expected: render(expected, show), actual: render(actual, show))
        }
    }

    /// Rows with every NaN made the same NaN: a sum or average that meets NaN, or `inf` and
    /// `-inf`, is NaN, but which NaN (its sign bit) depends on the order the engine adds in,
    /// which the contract does not fix. Stored NaNs still compare exactly in records.
    static func nanBlind(_ rows: [[Value]]) -> [[Value]] {
        rows.map { row in row.map { value in
            if case .double(let d) = value, d.isNaN { return .double(.nan) }
            return value
        } }
    }

    mutating func apply(_ operation: DifferentialOperation) -> Disagreement? {
        let schema = self.schema
        func note<T>(_ result: Result<T, StorageError>, isEmpty: (T) -> Bool) {
            switch result {
            case .success(let value): if isEmpty(value) { counts.emptyReads += 1 } else { counts.nonEmptyReads += 1 }
            case .failure: counts.readErrors += 1
            }
        }
        switch operation {
        case .write(let changes, let note):
            let expected = model.apply(changes)
            let isStale = note.hasPrefix(OperationGenerator.staleNotePrefix)
            if isStale { counts.staleWrites += 1 }
            if case .success = expected {
                counts.commits += 1
                if isStale { counts.staleCommits += 1 }
            } else {
                counts.rejectedWrites += 1
            }
            let actual = Self.catching { try store.write(changes) }
            switch (expected, actual) {
            case (.success(let e), .success(let a)):
                let expectedIDs = e.permanentIDs.map { "\($0.key) → \($0.value)" }.sorted()
                let actualIDs = a.permanentIDs.map { "\($0.key) → \($0.value)" }.sorted()
                if expectedIDs != actualIDs {
                    return Disagreement(expected: "commit, permanent ids \(expectedIDs)", actual: "commit, permanent ids \(actualIDs)")
                }
                if let last = lastSequence, a.sequence <= last {
                    return Disagreement(expected: "commit with a sequence above \(last)", actual: "commit with sequence \(a.sequence)")
                }
                lastSequence = a.sequence
                if let disagreement = ChangesComparison.compare(expected: e.changes, actual: a.changes) { return disagreement }
                let inconsistencies = model.relationshipInconsistencies()
                if !inconsistencies.isEmpty {
                    // Both implementations of the merge rules agree on a state the rules promise never to reach.
                    return Disagreement(expected: "both sides of every relationship agree after the commit",
                                        actual: "reference model: " + inconsistencies.prefix(4).joined(separator: "; "))
                }
                return nil
            case (.failure(let rejection), .failure(let error)) where rejection.accepts(error):
                return nil
            case (.failure(let rejection), _):
                return Disagreement(expected: "rejected with one of: " + rejection.candidates.map(\.description).joined(separator: " | "),
                                    actual: Self.render(actual) { "commit, permanent ids \($0.permanentIDs.map { "\($0.key) → \($0.value)" }.sorted())" })
            case (.success(let e), .failure(let error)):
                return Disagreement(expected: "commit, permanent ids \(e.permanentIDs.map { "\($0.key) → \($0.value)" }.sorted())", actual: "error \(error)")
            }
        case .fetch(let request):
            let model = self.model
            let expected = Self.catching { try model.fetch(request) }
            note(expected) { $0.isEmpty }
            let actual = Self.catching { try store.read { try $0.fetch(request).completed(for: request, schema: schema) } }
            if let disagreement = Self.compare(expected, actual, same: { $0.map(CanonicalRecord.init) == $1.map(CanonicalRecord.init) },
                                               show: { "\($0.count) records: " + $0.map(DifferentialOperation.render).joined(separator: ", ") }) {
                return disagreement
            }
            // The identifiers alone must be the fetch's, in its order.
            let expectedIDs = expected.map { $0.map(\.id) }
            let actualIDs = Self.catching { try store.read { try $0.recordIDs(request, schema: schema) } }
            if let disagreement = Self.compare(expectedIDs, actualIDs, same: ==, show: { "identifiers " + $0.map(\.description).joined(separator: ", ") }) {
                return disagreement
            }
            // In any order, the same identifiers, each once.
            let inKeyOrder: ([RecordID]) -> [RecordID] = { $0.sorted { ($0.entity, $0.key) < ($1.entity, $1.key) } }
            let unorderedIDs = Self.catching { try store.read { try $0.unorderedRecordIDs(request, schema: schema) } }
            return Self.compare(expectedIDs.map(inKeyOrder), unorderedIDs.map(inKeyOrder), same: ==, show: { "identifiers in any order " + $0.map(\.description).joined(separator: ", ") })
        case .count(let request):
            let model = self.model
            let expected = Self.catching { try model.count(request) }
            note(expected) { $0 == 0 }
            let actual = Self.catching { try store.read { try $0.count(request) } }
            return Self.compare(expected, actual, same: ==, show: { "count \($0)" })
        case .aggregate(let request):
            let model = self.model
            let expected = Self.catching { try model.aggregate(request) }
            note(expected) { $0.isEmpty }
            let actual = Self.catching { try store.read { try $0.aggregate(request, schema: schema) } }
            return Self.compare(expected, actual, same: { Self.nanBlind($0) == Self.nanBlind($1) }, show: { rows in
                "\(rows.count) rows: " + rows.map { "(" + $0.map(DifferentialOperation.renderValue).joined(separator: ", ") + ")" }.joined(separator: ", ")
            })
        case .lookUp(let ids):
            let expected = Result<[Record?], StorageError>.success(model.lookUp(ids))
            note(expected) { $0.allSatisfy { $0 == nil } }
            let actual = Self.catching { try store.read { try $0.records(ids) } }
            return Self.compare(expected, actual, same: { $0.map { $0.map(CanonicalRecord.init) } == $1.map { $0.map(CanonicalRecord.init) } },
                                show: { $0.map { $0.map(DifferentialOperation.render) ?? "nil" }.joined(separator: ", ") })
        }
    }
}

/// A record in a form that compares exactly: identifiers by entity and key, values by
/// ``Value``'s identity, and unordered to-many destinations sorted by key (their order carries no
/// meaning).
struct CanonicalRecord: Hashable {
    var id: String
    var attributes: [Value]
    var relationships: [[String]]

    init(_ record: Record) {
        id = record.id.description
        attributes = record.attributes
        let entity = DifferentialSchema.schema.entity(named: record.id.entity)
        relationships = record.relationships.enumerated().map { i, destinations in
            let unordered = entity.map { i < $0.relationships.count && $0.relationships[i].kind == .toManyUnordered } ?? false
            return (unordered ? destinations.sorted() : destinations).map(\.description)
        }
    }
}
