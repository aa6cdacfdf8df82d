import ArgumentParser
import CoreStoreConformance
import Foundation
import CoreStoreFirstPartyFactories
import CoreStoreStorage

/// `corestore conformance`: runs the conformance suite and the differential runner on one of
/// the first-party stores, prints a table per group and a closing `N passed, N failed, N skipped`.
struct ConformanceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conformance",
        abstract: "Run the conformance suite (and the differential runner) against a store.",
        discussion: """
            Prints a table per group of cases and a closing line `N passed, N failed, N \
            skipped`; exits non-zero when a case fails. Progress goes to standard error (a bar \
            on a terminal, a line every few seconds otherwise; --quiet turns it off).

            Examples:
              corestore conformance --backend lmdb
              corestore conformance --backend sqlite --group predicates --group sorting
              corestore conformance --backend leveldb --group differential --sequences 1000 --seed 7
              corestore conformance --backend postgres --url postgres://me@localhost/scratch

            The postgres backend makes a schema per store in the database at --url and drops \
            it again; the URL's password never appears in the output.
            """
    )

    enum Backend: String, ExpressibleByArgument, CaseIterable {
        case memory, sqlite, lmdb, leveldb, postgres
    }

    /// The factory of the chosen backend (`url` is the database of `postgres`).
    static func factory(_ backend: Backend, url: String?) -> any StorageFactory {
        switch backend {
        case .memory: InMemoryFactory()
        case .sqlite: SQLiteFactory()
        case .lmdb: LMDBFactory()
        case .leveldb: LevelDBFactory()
        case .postgres: PostgresFactory(url: url ?? "")
        }
    }

    @Option(help: "The store to check: \(Backend.allCases.map(\.rawValue).joined(separator: ", ")).")
    var backend: Backend = .sqlite

    @Option(help: "The PostgreSQL database of --backend postgres (postgres://user[:password]@host[:port]/database, or libpq's key=value form).")
    var url: String?

    @Option(help: "The seed of the differential runner.")
    var seed: UInt64 = 20_261_123

    @Option(help: "How many random operation sequences the differential runner plays (0: none).")
    var sequences: Int = 200

    @Option(help: "Run only this group of cases (repeatable); the differential runner is the group 'differential'.")
    var group: [String] = []

    @Flag(help: "No progress on standard error.")
    var quiet = false

    func validate() throws {
        let known = Set(ConformanceSuite.groups + ["differential"])
        for name in group where !known.contains(name) {
            throw ValidationError("unknown group '\(name)'; the groups are: \(known.sorted().joined(separator: ", "))")
        }
        guard sequences >= 0 else { throw ValidationError("--sequences must not be negative") }
        if backend == .postgres, (url ?? "").isEmpty {
            throw ValidationError("--backend postgres needs --url (for example postgres://me@localhost/scratch)")
        }
        if backend != .postgres, url != nil {
            throw ValidationError("--url is for --backend postgres only")
        }
    }

    func run() throws {
        let factory = Self.factory(backend, url: url)
        let selected = group.isEmpty ? nil : Set(group)
        var passed = 0, failed = 0, skipped = 0
        print("Conformance of \(factory.name)\n")
        print(pad("group", 16) + pad("passed", 8) + pad("failed", 8) + "skipped")

        let caseGroups = ConformanceSuite.groups.filter { selected?.contains($0) ?? true }
        if !caseGroups.isEmpty {
            let total = ConformanceSuite.cases.filter { caseGroups.contains($0.group) }.count
            let progress = ProgressReporter("conformance", total: total, unit: "cases", quiet: quiet)
            let report = ConformanceSuite.run(with: factory, groups: Set(caseGroups), progress: progress.update)
            progress.finish()
            for name in caseGroups {
                let inGroup = { (id: String) in id.hasPrefix(name + "/") }
                let p = report.passed.filter(inGroup).count
                let f = report.failed.filter { inGroup($0.caseID) }.count
                let s = report.skipped.filter { inGroup($0.caseID) }.count
                print(pad(name, 16) + pad("\(p)", 8) + pad("\(f)", 8) + "\(s)")
            }
            passed += report.passed.count
            failed += report.failed.count
            skipped += report.skipped.count
            for failure in report.failed { print("  FAILED \(failure)") }
            for skip in report.skipped { print("  SKIPPED \(skip)") }
        }

        if selected?.contains("differential") ?? true, sequences > 0 {
            var runner = DifferentialRunner(seed: seed, sequences: sequences)
            runner.continuesAfterMismatch = true
            let progress = ProgressReporter("differential", total: sequences, unit: "sequences", quiet: quiet)
            let report = try runner.run(with: factory, progress: progress.update)
            progress.finish()
            let f = report.mismatches.count
            print(pad("differential", 16) + pad("\(report.sequencesRun - f)", 8) + pad("\(f)", 8) + "0")
            for mismatch in report.mismatches { print("  MISMATCH \(mismatch)") }
            passed += report.sequencesRun - f
            failed += f
        }
        print("\n\(passed) passed, \(failed) failed, \(skipped) skipped")
        if failed > 0 { throw ExitCode.failure }
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
