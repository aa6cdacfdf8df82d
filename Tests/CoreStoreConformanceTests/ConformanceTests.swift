import Foundation
import Testing
import CoreStoreConformance
import CoreStoreStorage
import CoreStoreFirstPartyFactories

/// The first-party backends the suite runs on.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case inMemory = "InMemory", sqliteFull = "SQLite(full)", sqliteNormal = "SQLite(normal)"
    case sqliteRollbackJournal = "SQLite(rollback journal)", keyValueMemory = "KeyValue", lmdb = "LMDB"
    case leveldbFull = "LevelDB(full)", leveldbNormal = "LevelDB(normal)"

    var testDescription: String { rawValue }

    /// A new factory (with its own directory) for this backend.
    var factory: any StorageFactory {
        switch self {
        case .inMemory: return InMemoryFactory()
        case .sqliteFull: return SQLiteFactory(durability: .full)
        case .sqliteNormal: return SQLiteFactory(durability: .normal)
        case .sqliteRollbackJournal: return SQLiteFactory(journalMode: .rollback)
        case .keyValueMemory: return MemoryKeyValueFactory()
        case .lmdb: return LMDBFactory(durability: .full)
        case .leveldbFull: return LevelDBFactory(durability: .full)
        case .leveldbNormal: return LevelDBFactory(durability: .normal)
        }
    }
}

/// The whole conformance suite, once per backend: one result per case that applies to the
/// backend's capabilities. The cases that do not apply are never run as tests (a cancelled
/// test case would be printed as passed); `skippedCases` lists them with their reasons.
@Suite("Conformance")
struct ConformanceTests {
    @Test(arguments: ConformanceSuite.cases(applicableTo: InMemoryFactory())) func inMemory(_ c: ConformanceCase) throws { try c.run(with: InMemoryFactory()) }
    @Test(arguments: ConformanceSuite.cases(applicableTo: SQLiteFactory())) func sqliteFull(_ c: ConformanceCase) throws { try c.run(with: SQLiteFactory(durability: .full)) }
    @Test(arguments: ConformanceSuite.cases(applicableTo: SQLiteFactory(durability: .normal))) func sqliteNormal(_ c: ConformanceCase) throws { try c.run(with: SQLiteFactory(durability: .normal)) }
    @Test(arguments: ConformanceSuite.cases(applicableTo: SQLiteFactory(journalMode: .rollback))) func sqliteRollbackJournal(_ c: ConformanceCase) throws { try c.run(with: SQLiteFactory(journalMode: .rollback)) }
    @Test(arguments: ConformanceSuite.cases(applicableTo: MemoryKeyValueFactory())) func keyValueMemory(_ c: ConformanceCase) throws { try c.run(with: MemoryKeyValueFactory()) }
    @Test(arguments: ConformanceSuite.cases(applicableTo: LMDBFactory())) func lmdb(_ c: ConformanceCase) throws { try c.run(with: LMDBFactory(durability: .full)) }
    @Test(arguments: ConformanceSuite.cases(applicableTo: LevelDBFactory())) func leveldbFull(_ c: ConformanceCase) throws { try c.run(with: LevelDBFactory(durability: .full)) }
    @Test(arguments: ConformanceSuite.cases(applicableTo: LevelDBFactory(durability: .normal))) func leveldbNormal(_ c: ConformanceCase) throws { try c.run(with: LevelDBFactory(durability: .normal)) }

    /// Prints the cases the backend skips, with their reasons, and checks that they are exactly
    /// the cases whose required capabilities the backend does not declare.
    @Test(arguments: Backend.allCases)
    func skippedCases(_ backend: Backend) throws {
        let factory = backend.factory
        defer { factory.cleanUp() }
        let probe = try factory.makeStorage(configuration: nil)
        let capabilities = probe.capabilities
        var adopted: Set<OptionalStorageProtocol> = []
        if probe is any ReadOnlyOpening { adopted.insert(.readOnlyOpening) }
        if probe is any SharedAccessStorage { adopted.insert(.sharedAccess) }
        if probe is any UpgradableStorage && probe is any MigratableStorage { adopted.insert(.migratable) }
        let skips = ConformanceSuite.skips(for: factory)
        let inapplicable = ConformanceSuite.cases.filter { !$0.requires.isSubset(of: capabilities) || !$0.adopts.isSubset(of: adopted) }
        print("\(factory.name): \(ConformanceSuite.cases.count - skips.count) cases run, \(skips.count) skipped")
        for skip in skips { print("SKIPPED on \(factory.name): \(skip)") }
        #expect(skips.map(\.caseID) == inapplicable.map(\.id))
        #expect(skips.allSatisfy { $0.reason.contains("does not declare") || $0.reason.contains("does not adopt") })
        #expect(ConformanceSuite.cases(applicableTo: factory).count + skips.count == ConformanceSuite.cases.count)
        if backend == .inMemory {
            #expect(skips.contains { $0.caseID.hasPrefix("durability/") }, "InMemoryStore is not persistent, so the durability cases are skipped")
        }
    }
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
        (.valuesOmittedForUnknownRecords, "crud"),
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

    /// The one-call runner (for XCTest users and the CLI): every case, no failure, each case
    /// either passed or skipped for a capability the backend lacks. On the two in-memory
    /// backends (one skips the durability cases): the per-case tests above already run every
    /// case on every backend, and the CLI runs this runner on SQLite in `scripts/test.sh`.
    @Test(arguments: [Backend.inMemory, .keyValueMemory])
    func oneCallReport(_ backend: Backend) {
        let factory = backend.factory
        let report = ConformanceSuite.run(with: factory)
        print(report.summaryLine)
        #expect(report.failed.isEmpty, "\(report)")
        #expect(report.passed == ConformanceSuite.cases(applicableTo: factory).map(\.id))
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
