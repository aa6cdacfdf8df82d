import Foundation
import Testing
import CoreStoreConformance
import CoreStoreFirstPartyFactories

/// The whole conformance suite, once per backend: one result per case.
@Suite("Conformance")
struct ConformanceTests {
    @Test(arguments: ConformanceSuite.cases) func inMemory(_ c: ConformanceCase) throws { try c.run(with: InMemoryFactory()) }
    @Test(arguments: ConformanceSuite.cases) func sqliteFull(_ c: ConformanceCase) throws { try c.run(with: SQLiteFactory(durability: .full)) }
    @Test(arguments: ConformanceSuite.cases) func sqliteNormal(_ c: ConformanceCase) throws { try c.run(with: SQLiteFactory(durability: .normal)) }
    @Test(arguments: ConformanceSuite.cases) func sqliteRollbackJournal(_ c: ConformanceCase) throws { try c.run(with: SQLiteFactory(journalMode: .rollback)) }
    @Test(arguments: ConformanceSuite.cases) func keyValueMemory(_ c: ConformanceCase) throws { try c.run(with: MemoryKeyValueFactory()) }
    @Test(arguments: ConformanceSuite.cases) func lmdb(_ c: ConformanceCase) throws { try c.run(with: LMDBFactory(durability: .full)) }
    @Test(arguments: ConformanceSuite.cases) func leveldbFull(_ c: ConformanceCase) throws { try c.run(with: LevelDBFactory(durability: .full)) }
    @Test(arguments: ConformanceSuite.cases) func leveldbNormal(_ c: ConformanceCase) throws { try c.run(with: LevelDBFactory(durability: .normal)) }
}

@Suite("Conformance suite itself")
struct ConformanceSuiteTests {
    @Test func caseIdentifiersAreUniqueAndGroupsKnown() {
        let ids = ConformanceSuite.cases.map(\.id)
        #expect(Set(ids).count == ids.count)
        #expect(Set(ConformanceSuite.cases.map(\.group)).isSubset(of: Set(ConformanceSuite.groups)))
        #expect(ConformanceSuite.cases.count >= 150)
    }

    @Test(arguments: [
        (Fault.reversedSorts, "sorting"), (.droppedLastInsert, "crud"), (.ignoredPredicates, "predicates"), (.nonAtomicWrites, "atomicity"),
    ])
    func aBrokenBackendFailsInTheNamedGroup(_ fault: Fault, _ group: String) {
        let report = ConformanceSuite.run(with: BrokenFactory(fault: fault))
        #expect(report.failedGroups.contains(group), "\(report)")
        #expect(!report.passed.isEmpty)
        #expect(report.summaryLine == "\(report.passed.count) passed, \(report.failed.count) failed, \(report.skipped.count) skipped")
        print("\(fault): \(report.summaryLine); failing groups: \(report.failedGroups.sorted())")
    }

    @Test func reversedSortsFailOnlyWhereOrderMatters() {
        let report = ConformanceSuite.run(with: BrokenFactory(fault: .reversedSorts), groups: ["sorting", "crud", "predicates"])
        #expect(report.failedGroups == ["sorting"], "\(report)")
        #expect(report.failed.contains { $0.caseID == "sorting/int ascending, nil first" })
    }

    /// The one-call runner (for XCTest users and the CLI): every backend, every case, no failure.
    @Test(arguments: ["InMemory", "SQLite(full)", "SQLite(normal)", "KeyValue", "LMDB", "LevelDB(full)", "LevelDB(normal)"])
    func oneCallReport(_ backend: String) {
        let report: ConformanceReport
        switch backend {
        case "InMemory": report = ConformanceSuite.run(with: InMemoryFactory())
        case "SQLite(full)": report = ConformanceSuite.run(with: SQLiteFactory(durability: .full))
        case "SQLite(normal)": report = ConformanceSuite.run(with: SQLiteFactory(durability: .normal))
        case "KeyValue": report = ConformanceSuite.run(with: MemoryKeyValueFactory())
        case "LMDB": report = ConformanceSuite.run(with: LMDBFactory(durability: .full))
        case "LevelDB(full)": report = ConformanceSuite.run(with: LevelDBFactory(durability: .full))
        default: report = ConformanceSuite.run(with: LevelDBFactory(durability: .normal))
        }
        print(report)
        #expect(report.failed.isEmpty, "\(report)")
        #expect(report.passed.count + report.skipped.count == ConformanceSuite.cases.count)
    }

    @Test func skipsAreReportedWithTheirReasonNotAsPasses() {
        let report = ConformanceSuite.run(with: InMemoryFactory(), groups: ["durability"])
        #expect(report.passed.isEmpty)
        #expect(report.skipped.count == ConformanceSuite.cases.filter { $0.group == "durability" }.count)
        #expect(report.skipped.allSatisfy { $0.reason.contains("persistent") })
    }

    @Test func runOutsideATestThrowsSkip() {
        // Inside a test `run(with:)` cancels the test, so only the non-throwing outcome is checked here.
        let durable = ConformanceSuite.cases.first { $0.group == "durability" }
        guard let durable, case .skipped(let reason) = durable.outcome(with: InMemoryFactory()) else {
            Issue.record("a durability case did not skip on an in-memory store")
            return
        }
        #expect(reason.contains("persistent"))
    }
}
