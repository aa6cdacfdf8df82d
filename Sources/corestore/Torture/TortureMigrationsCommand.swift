import ArgumentParser
import CoreStore
import Foundation

/// `corestore torture migrations`: proves that a migration is all or nothing. Seeds a V1 store,
/// then again and again copies it, migrates the copy to V2 in a child process, kills the child
/// with SIGKILL at a random moment and checks that the copy is either intact at V1 (and still
/// migrates) or exactly what the migration produces at V2.
struct TortureMigrationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrations",
        abstract: "SIGKILL migrations at random moments and check every store is intact at V1 or V2.",
        discussion: """
            Runs rotate through three V1 → V2 steps: a heavyweight one that computes a new \
            attribute, a heavyweight one that drops a fifth of the transfers, and a lightweight \
            inferred one. The child is killed at a moment uniform over the time an \
            uninterrupted child migrates, sometimes before it starts, sometimes just as it \
            finishes; one killed run in four gets a second child on the store the first left, \
            killed too. \
            Prints 'BACKEND: N kills, N at V1, N at V2, N lost, N torn' and exits non-zero on any \
            loss, tear or unexpected error.
            """
    )

    @Option(help: "The store to torture: \(TortureBackend.allCases.map(\.rawValue).joined(separator: ", ")).")
    var backend: TortureBackend = .sqlite

    @Option(help: "How many migrations to kill.")
    var kills: Int = 100

    @Option(help: "Accounts in the store (each with \(TortureLedger.transfersPerAccount) transfers).")
    var rows: Int = 1_000

    @Option(help: "The seed of the data and of the kill moments.")
    var seed: UInt64 = 20_261_201

    @OptionGroup var options: TortureRunOptions

    func validate() throws {
        guard kills > 0 else { throw ValidationError("--kills must be positive") }
        guard rows >= 2 else { throw ValidationError("--rows must be at least 2") }
    }

    func run() async throws {
        CoreStoreDefaults.logger = TortureLogger()
        let ledger = TortureLedger(accountCount: rows, seed: seed)
        let workspace = try TortureWorkspace(backend: backend, parent: options.parentDirectory)
        var tally = TortureTally()
        let interruption = TortureInterruption()
        defer {
            if options.keepFailures && !tally.isClean {
                print("kept \(workspace.root.path)")
            } else {
                workspace.remove()
            }
        }
        try workspace.seedTemplate(with: ledger)
        let inspector = TortureInspector(backend: backend, ledger: ledger)
        try inspector.verifyTemplate(workspace.backend.storeURL(in: workspace.template))
        var runner = TortureRunner(workspace: workspace, inspector: inspector, seed: seed)
        if options.verbose { print("\(backend.rawValue): seeded \(ledger.objectCount) objects in \(workspace.root.path)") }

        // Three uninterrupted runs of each step time the kill windows (and must end at V2).
        for round in 0..<3 {
            for migration in TortureMigration.allCases where !interruption.happened {
                let outcome = try await runner.calibrate(migration, round: round)
                tally.record(outcome, meantToKill: false, childLog: runner.lastChildLog)
                if options.verbose {
                    let start = outcome.startSeconds.map { String(format: "%.3f", $0) } ?? "-"
                    print(outcome.label + " → \(outcome.finding); migrated from \(start) s to \(String(format: "%.3f", outcome.childSeconds)) s")
                }
            }
        }
        var run = 0
        while tally.kills < kills && run < 3 * kills + 3 && !interruption.happened {
            let migration = TortureMigration.allCases[run % TortureMigration.allCases.count]
            let outcome = try await runner.run(number: run, migration: migration)
            tally.record(outcome, meantToKill: true, childLog: runner.lastChildLog)
            if options.verbose { print(outcome.label + " → \(outcome.finding)") }
            run += 1
        }
        for failure in tally.failures { print(failure) }
        if let signal = interruption.receivedSignal {
            print("interrupted after \(run) runs")
            throw ExitCode(128 + signal)
        }
        print(tally.summary(backend: backend))
        if !tally.isClean { throw ExitCode.failure }
    }
}
