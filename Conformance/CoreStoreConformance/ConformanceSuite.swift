import Foundation
import CoreStoreStorage

/// Every conformance case, and a runner that reports each outcome by name.
public enum ConformanceSuite {
    /// The groups, in order.
    public static let groups: [String] = [
        "lifecycle", "values", "crud", "relationships", "predicates", "sorting", "aggregates",
        "atomicity", "isolation", "durability", "uniqueness", "errors", "changes", "files", "api",
        "observation", "importing", "merging", "migrations",
    ]

    /// Every case of every group.
    public static let cases: [ConformanceCase] =
        LifecycleCases.all + LifecycleCases.readOnlyCases + LifecycleCases.sharingCases + ValueCases.all + CRUDCases.all + CRUDCases.pages + RelationshipCases.all + PredicateCases.all
        + SortingCases.all + AggregateCases.all + AtomicityCases.all + IsolationCases.all + DurabilityCases.all
        + UniquenessCases.all + ErrorCases.all + ChangeCases.all + FileCases.all + APICases.all
        + ObservationCases.all + ImportingCases.all + MergingCases.all + MigrationCases.all

    /// The cases a store declaring `capabilities` runs: those whose ``ConformanceCase/requires``
    /// it declares, in suite order.
    public static func cases(applicableTo capabilities: StorageCapabilities) -> [ConformanceCase] {
        cases.filter { $0.applies(to: capabilities) }
    }

    /// The cases the stores of `factory` run, for a parameterized test that shows only real
    /// results (see ``skips(for:)`` for the rest).
    ///
    /// ```swift
    /// @Test(arguments: ConformanceSuite.cases(applicableTo: MyBackendFactory()))
    /// func conformance(_ c: ConformanceCase) throws { try c.run(with: MyBackendFactory()) }
    /// ```
    /// When the factory cannot make a store, every case is returned, so that each fails and says so.
    public static func cases(applicableTo factory: some StorageFactory) -> [ConformanceCase] {
        guard let probe = probe(factory) else { return cases }
        return cases.filter { $0.skipReason(for: probe.capabilities, adopted: probe.adopted, backend: factory.name) == nil }
    }

    /// The cases the stores of `factory` skip, each with the missing capabilities or protocols
    /// as its reason;
    /// together with `cases(applicableTo:)` they are every case.
    ///
    /// ```swift
    /// @Test func skippedCases() {
    ///     for skip in ConformanceSuite.skips(for: MyBackendFactory()) { print("SKIPPED \(skip)") }
    /// }
    /// ```
    public static func skips(for factory: some StorageFactory) -> [ConformanceSkip] {
        guard let probe = probe(factory) else { return [] }
        return cases.compactMap { c in
            c.skipReason(for: probe.capabilities, adopted: probe.adopted, backend: factory.name).map { ConformanceSkip(caseID: c.id, reason: $0) }
        }
    }

    /// The capabilities and optional protocols of a new store of `factory` (closed again, files
    /// cleaned up), or `nil`.
    private static func probe(_ factory: some StorageFactory) -> (capabilities: StorageCapabilities, adopted: Set<OptionalStorageProtocol>)? {
        defer { factory.cleanUp() }
        guard let store = try? factory.makeStorage(configuration: nil) else { return nil }
        defer { store.close() }
        return (store.capabilities, OptionalStorageProtocol.adopted(by: store))
    }

    /// Runs the cases of `groups` (all when `nil`) against `factory`, one after the other,
    /// calling `progress` with the number of cases done after each.
    public static func run(
        with factory: some StorageFactory, groups: Set<String>? = nil, progress: (Int) -> Void = { _ in }
    ) -> ConformanceReport {
        var report = ConformanceReport(backend: factory.name)
        var done = 0
        for c in cases where groups.map({ $0.contains(c.group) }) ?? true {
            switch c.outcome(with: factory) {
            case .passed: report.passed.append(c.id)
            case .failed(let failure): report.failed.append(failure)
            case .skipped(let reason): report.skipped.append(ConformanceSkip(caseID: c.id, reason: reason))
            }
            done += 1
            progress(done)
        }
        return report
    }
}

/// What a suite run gave, case by case.
public struct ConformanceReport: Sendable, CustomStringConvertible {
    /// The backend's name.
    public var backend: String
    /// Identifiers of the cases that passed.
    public var passed: [String] = []
    /// The failures, with their messages.
    public var failed: [ConformanceFailure] = []
    /// The skipped cases, with their reasons (never counted as passed).
    public var skipped: [ConformanceSkip] = []

    /// Creates an empty report.
    public init(backend: String) { self.backend = backend }

    /// `"N passed, N failed, N skipped"`.
    public var summaryLine: String { "\(passed.count) passed, \(failed.count) failed, \(skipped.count) skipped" }

    /// The groups with at least one failure.
    public var failedGroups: Set<String> {
        Set(failed.map { String($0.caseID.prefix { $0 != "/" }) })
    }

    /// The summary, then one line per failure and per skip.
    public var description: String {
        var lines = ["\(backend): \(summaryLine)"]
        lines += failed.map { "FAILED \($0)" }
        lines += skipped.map { "SKIPPED \($0)" }
        return lines.joined(separator: "\n")
    }
}
