import Foundation
import CoreStoreStorage

/// Every conformance case, and a runner that reports each outcome by name.
public enum ConformanceSuite {
    /// The groups, in order.
    public static let groups: [String] = [
        "lifecycle", "values", "crud", "relationships", "predicates", "sorting", "aggregates",
        "atomicity", "isolation", "durability", "uniqueness", "errors", "api",
    ]

    /// Every case of every group.
    public static let cases: [ConformanceCase] =
        LifecycleCases.all + ValueCases.all + CRUDCases.all + RelationshipCases.all + PredicateCases.all
        + SortingCases.all + AggregateCases.all + AtomicityCases.all + IsolationCases.all + DurabilityCases.all
        + UniquenessCases.all + ErrorCases.all + APICases.all

    /// Runs the cases of `groups` (all when `nil`) against `factory`, one after the other.
    public static func run(with factory: some StorageFactory, groups: Set<String>? = nil) -> ConformanceReport {
        var report = ConformanceReport(backend: factory.name)
        for c in cases where groups.map({ $0.contains(c.group) }) ?? true {
            switch c.outcome(with: factory) {
            case .passed: report.passed.append(c.id)
            case .failed(let failure): report.failed.append(failure)
            case .skipped(let reason): report.skipped.append(ConformanceSkip(caseID: c.id, reason: reason))
            }
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
