import ArgumentParser
import CoreStore
import CoreStoreConformance
import Foundation

/// `corestore torture commits`: proves that a commit is all or nothing and that an acknowledged
/// commit survives the process. A child process commits transfers (see ``CommitPlan``) and
/// prints each commit as it returns; the parent kills it with SIGKILL at a random moment, opens
/// the store and checks every invariant of ``CommitTortureModel`` against the acknowledgements,
/// then starts the next child on the same store.
struct TortureCommitsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "commits",
        abstract: "SIGKILL a process committing transfers at random moments and check that no commit is lost or torn.",
        discussion: """
            The child moves money between accounts, appends a gap-free commit log and writes \
            notes (one commit in eight is large: a hundred transfers and hundreds of notes). \
            It is killed at a moment uniform over the time it takes for about \(commitsPerKill) \
            commits, and one time in ten while it is still opening the store. After each kill \
            the store must open, the balances must add up, the log must have no gap and reach \
            every acknowledged commit, and every commit must keep exactly its notes. \
            Prints 'BACKEND: N kills, N commits acknowledged, N lost, N torn (…)' and exits \
            non-zero on any loss, tear or unexpected error.

            Examples:
              corestore torture commits --backend lmdb --kills 500
              corestore torture commits --backend sqlite --durability normal --kills 50 --verbose
            """
    )

    /// The kill moment is uniform over about this many commits of an uninterrupted child.
    static let commitsPerKill = 20

    @Option(help: "The store to torture: \(TortureBackend.allCases.map(\.rawValue).joined(separator: ", ")).")
    var backend: TortureBackend = .sqlite

    @Option(help: "How many children to kill.")
    var kills: Int = 100

    @Option(help: "Accounts in the store.")
    var accounts: Int = 100

    @Option(help: "The durability of the store's commits: full or normal (a process kill must lose nothing with either).")
    var durability: TortureDurability = .full

    @Option(help: "The seed of the transfers and of the kill moments.")
    var seed: UInt64 = 20_261_126

    @OptionGroup var options: TortureRunOptions

    func validate() throws {
        guard kills > 0 else { throw ValidationError("--kills must be positive") }
        guard accounts >= 2 else { throw ValidationError("--accounts must be at least 2") }
    }

    func run() async throws {
        CoreStoreDefaults.logger = TortureLogger()
        let workspace = try TortureWorkspace(backend: backend, parent: options.parentDirectory)
        let store = backend.storeURL(in: workspace.root)
        let errorLog = workspace.root.appendingPathComponent("children.log")
        var tally = CommitTortureTally()
        let interruption = TortureInterruption()
        defer {
            if options.keepFailures && !tally.isClean {
                print("kept \(workspace.root.path)")
            } else {
                workspace.remove()
            }
        }
        try CommitTortureModel.seed(accounts: accounts, at: store, backend: backend, durability: durability)
        let inspector = CommitTortureInspector(backend: backend, durability: durability, accountCount: accounts)
        var lastSerial = 0
        let calibration = try calibrate(store: store, errorLog: errorLog, lastSerial: &lastSerial, inspector: inspector)
        if options.verbose { print("\(backend.rawValue): opening takes \(Self.seconds(calibration.opening)), a commit \(Self.seconds(calibration.commit))") }

        var random = SplitMix64(seed: seed)
        var run = 0
        while tally.kills < kills && run < 2 * kills + 2 && !interruption.happened && tally.isClean {
            run += 1
            let child = try CommitTortureChild(
                backend: backend, store: store, durability: durability, seed: seed &+ UInt64(run), commits: nil, errorLog: errorLog
            )
            let whileOpening = random.oneIn(10)
            let delay: TimeInterval
            if whileOpening {
                delay = calibration.opening * Self.uniform(&random)
            } else {
                guard child.waitUntilReady(timeout: 120) else {
                    child.kill()
                    tally.recordChildFailure("did not open the store within 120 s (\(child.waitForExit(timeout: 10)))\n" + Self.tail(of: errorLog), run: run)
                    break
                }
                delay = calibration.commit * Double(Self.commitsPerKill) * Self.uniform(&random)
            }
            try await Task.sleep(nanoseconds: UInt64(delay * 1e9))
            child.kill()
            let termination = child.waitForExit(timeout: 120)
            guard termination == .killed else {
                tally.recordChildFailure("ended \(termination) instead of being killed\n" + Self.tail(of: errorLog), run: run)
                break
            }
            tally.kills += 1
            if child.startSerial == nil { tally.killedWhileOpening += 1 }
            let acknowledged = child.acknowledged ?? lastSerial
            tally.acknowledged += acknowledged - (child.startSerial ?? lastSerial)
            let finding = inspector.inspect(store, acknowledged: acknowledged)
            tally.record(finding, run: run, acknowledged: acknowledged)
            if case .intact(let last) = finding { lastSerial = last }
            if options.verbose {
                let moment = whileOpening ? "while opening" : "after \(Self.seconds(delay))"
                print("run \(run): killed \(moment); acknowledged up to \(acknowledged), found \(finding)")
            }
        }
        for failure in tally.failures { print(failure) }
        if let signal = interruption.receivedSignal {
            print("interrupted after \(run) runs")
            throw ExitCode(128 + signal)
        }
        print(tally.summary(backend: backend, durability: durability))
        if !tally.isClean { throw ExitCode.failure }
    }

    /// How long a child takes to open the store and to make one commit, timed on an
    /// uninterrupted child making ``commitsPerKill`` commits (which the store then holds).
    private func calibrate(store: URL, errorLog: URL, lastSerial: inout Int, inspector: CommitTortureInspector) throws -> (opening: TimeInterval, commit: TimeInterval) {
        let child = try CommitTortureChild(
            backend: backend, store: store, durability: durability, seed: seed, commits: Self.commitsPerKill, errorLog: errorLog
        )
        guard child.waitUntilReady(timeout: 120) else {
            child.kill()
            throw TortureSetupError(message: "the calibration child did not open the store\n" + Self.tail(of: errorLog))
        }
        let ready = Date()
        let termination = child.waitForExit(timeout: 600)
        let end = Date()
        guard termination == .exited(0), child.acknowledged == Self.commitsPerKill else {
            throw TortureSetupError(message: "the calibration child ended \(termination) after \(child.acknowledged ?? 0) commits\n" + Self.tail(of: errorLog))
        }
        guard case .intact(let last) = inspector.inspect(store, acknowledged: Self.commitsPerKill) else {
            throw TortureSetupError(message: "the store is wrong after the uninterrupted calibration child: \(inspector.inspect(store, acknowledged: Self.commitsPerKill))")
        }
        lastSerial = last
        return (ready.timeIntervalSince(child.spawned), end.timeIntervalSince(ready) / Double(Self.commitsPerKill))
    }

    /// A uniform number in [0, 1).
    private static func uniform(_ random: inout SplitMix64) -> Double {
        Double(random.next() >> 11) / Double(1 << 53)
    }

    private static func seconds(_ t: TimeInterval) -> String { String(format: "%.4f s", t) }

    /// The last lines the children wrote to standard error.
    private static func tail(of log: URL) -> String {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(5).map { "    " + $0 }.joined(separator: "\n")
    }
}
