import CoreStoreConformance
import Foundation

/// Runs `migrate-child` on copies of the template store, kills it, and inspects the copy.
struct TortureRunner {
    let workspace: TortureWorkspace
    let inspector: TortureInspector
    private var random: SplitMix64
    /// When uninterrupted children started migrating and ended, in seconds after they were
    /// spawned, per migration: from ``calibrate(_:)`` and from runs that ended before their kill.
    private var samples: [TortureMigration: [(start: TimeInterval, end: TimeInterval)]] = [:]
    /// The standard error of the last child.
    private(set) var lastChildLog = ""

    /// When a run's child is killed.
    enum KillMoment: CustomStringConvertible {
        /// This many seconds after it is spawned, before the migration starts.
        case beforeStart(TimeInterval)
        /// This many seconds after it is spawned, while it migrates.
        case after(TimeInterval)
        /// This many seconds after it reports every record copied, as the step finishes.
        case afterCopying(TimeInterval)
        /// Never: the calibration runs.
        case never

        var description: String {
            switch self {
            case .beforeStart(let delay): "killed \(String(format: "%.4f", delay)) s after spawning, before migrating"
            case .after(let delay): "killed after \(String(format: "%.4f", delay)) s"
            case .afterCopying(let delay): "killed \(String(format: "%.4f", delay)) s after copying"
            case .never: "not killed"
            }
        }
    }

    /// What one run did.
    struct Outcome {
        let label: String
        let termination: TortureChildProcess.Termination
        let finding: TortureFinding
        /// From spawning the child to its first progress report (`nil`: none).
        let startSeconds: TimeInterval?
        /// From spawning the child to its end.
        let childSeconds: TimeInterval
    }

    init(workspace: TortureWorkspace, inspector: TortureInspector, seed: UInt64) {
        self.workspace = workspace
        self.inspector = inspector
        self.random = SplitMix64(seed: seed ^ 0x6B69_6C6C)
    }

    /// Runs `migration` uninterrupted and remembers when the child started migrating and ended.
    mutating func calibrate(_ migration: TortureMigration, round: Int) async throws -> Outcome {
        try await run(name: "uninterrupted-\(migration.rawValue)-\(round)", migration: migration, moment: .never)
    }

    /// When an uninterrupted child of `migration` starts migrating and ends: the medians of the
    /// samples (one busy moment of the machine does not stretch every kill window).
    func timing(of migration: TortureMigration) -> (start: TimeInterval, end: TimeInterval) {
        let observed = samples[migration] ?? []
        guard !observed.isEmpty else { return (0, 1) }
        func median(_ values: [TimeInterval]) -> TimeInterval { values.sorted()[values.count / 2] }
        let end = median(observed.map(\.end))
        return (min(median(observed.map(\.start)), end), end)
    }

    /// Runs `migration` and kills it at a random moment: mostly uniform over the time an
    /// uninterrupted child migrates, sometimes before it starts, sometimes just as it finishes.
    mutating func run(number: Int, migration: TortureMigration) async throws -> Outcome {
        let (start, end) = timing(of: migration)
        let moment: KillMoment
        switch random.below(20) {
        case 0, 1: moment = .beforeStart(uniform() * start)
        case 2, 3, 4: moment = .afterCopying(uniform() * max(0.002, (end - start) * 0.05))
        default: moment = .after(start + uniform() * (end - start))
        }
        return try await run(name: "run-\(number)", migration: migration, moment: moment)
    }

    private mutating func run(name: String, migration: TortureMigration, moment: KillMoment) async throws -> Outcome {
        let directory = try workspace.copyOfTemplate(named: name)
        let store = workspace.backend.storeURL(in: directory)
        let errorLog = directory.appendingPathComponent("child-stderr.log")
        let child = try TortureChildProcess(
            executable: TortureChildProcess.currentExecutable,
            arguments: ["torture", "migrate-child", "--backend", workspace.backend.rawValue, "--path", store.path, "--migration", migration.rawValue],
            errorLog: errorLog
        )
        let started = Date()
        try child.start()
        switch moment {
        case .beforeStart(let delay), .after(let delay):
            Self.sleep(delay)
            child.kill()
        case .afterCopying(let delay):
            if child.waitUntilCopied(timeout: 10 * timing(of: migration).end + 10) { Self.sleep(delay) }
            child.kill()
        case .never:
            break
        }
        // A child that is still running long after an uninterrupted one ends is stuck.
        let termination = child.waitForExit(timeout: 60 + 20 * timing(of: migration).end)
        let childSeconds = Date().timeIntervalSince(started)
        let startSeconds = child.firstReportDate.map { $0.timeIntervalSince(started) }
        if termination == .exited(0) {
            samples[migration, default: []].append((startSeconds ?? 0, max(childSeconds, 0.001)))
        }
        lastChildLog = (try? String(contentsOf: errorLog, encoding: .utf8)) ?? ""
        let progress = child.lastReportedFraction.map { String(format: "%.3f", $0) } ?? "none"
        let label = "\(name) \(migration.rawValue) (\(moment), last progress \(progress), \(termination))"
        let finding = await inspector.inspect(store, migration: migration)
        switch finding {
        case .atV1, .atV2: workspace.remove(directory)
        case .lost, .torn, .error: break
        }
        return Outcome(label: label, termination: termination, finding: finding, startSeconds: startSeconds, childSeconds: childSeconds)
    }

    /// A number uniform in [0, 1).
    private mutating func uniform() -> Double {
        Double(random.next() >> 11) / Double(UInt64(1) << 53)
    }

    private static func sleep(_ seconds: TimeInterval) {
        guard seconds > 0 else { return }
        usleep(useconds_t(min(seconds, 3_600) * 1_000_000))
    }
}
