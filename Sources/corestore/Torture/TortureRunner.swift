import CoreStoreConformance
import Foundation

/// Runs `migrate-child` on copies of the template store, kills it, and inspects the copy.
struct TortureRunner {
    let workspace: TortureWorkspace
    let inspector: TortureInspector
    private var random: SplitMix64
    /// When uninterrupted children started migrating and ended, in seconds after they were
    /// spawned, per migration: from ``calibrate(_:round:)`` and from runs that ended before their kill.
    private var samples: [TortureMigration: [(start: TimeInterval, end: TimeInterval)]] = [:]
    /// The standard error of the last run's children.
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
        let finding: TortureFinding
        /// Whether a child was killed (``TortureChildProcess/Termination/killed``).
        let killed: Bool
        /// Whether a second child, on the store the first left, was killed too.
        let killedTwice: Bool
        /// Whether the last child finished the migration (exit status 0).
        let finished: Bool
        /// How a child failed by itself (an exit status, a signal, a hang), `nil` if none did.
        let childFailure: String?
        /// From spawning the (last) child to its first progress report (`nil`: none).
        let startSeconds: TimeInterval?
        /// From spawning the (last) child to its end.
        let childSeconds: TimeInterval
    }

    /// One child process on a store.
    private struct Attempt {
        let termination: TortureChildProcess.Termination
        let startSeconds: TimeInterval?
        let childSeconds: TimeInterval
        let description: String

        var failure: String? {
            switch termination {
            case .killed, .exited(0): return nil
            case .exited(let status): return "the child exited with status \(status)"
            case .signaled(let signal): return "the child died of signal \(signal)"
            case .hung: return "the child hung and was killed"
            }
        }
    }

    init(workspace: TortureWorkspace, inspector: TortureInspector, seed: UInt64) {
        self.workspace = workspace
        self.inspector = inspector
        self.random = SplitMix64(seed: seed ^ 0x6B69_6C6C)
    }

    /// Runs `migration` uninterrupted and remembers when the child started migrating and ended.
    mutating func calibrate(_ migration: TortureMigration, round: Int) async throws -> Outcome {
        try await run(name: "uninterrupted-\(migration.rawValue)-\(round)", migration: migration, moments: [.never])
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
    /// One run in four, a second child is started on the store the killed one left (it cleans
    /// up what the first wrote and migrates again) and is killed too.
    mutating func run(number: Int, migration: TortureMigration) async throws -> Outcome {
        let moments = random.below(4) == 0 ? [randomMoment(migration), randomMoment(migration)] : [randomMoment(migration)]
        return try await run(name: "run-\(number)", migration: migration, moments: moments)
    }

    private mutating func randomMoment(_ migration: TortureMigration) -> KillMoment {
        let (start, end) = timing(of: migration)
        switch random.below(20) {
        case 0, 1: return .beforeStart(uniform() * start)
        case 2, 3, 4: return .afterCopying(uniform() * max(0.002, (end - start) * 0.05))
        default: return .after(start + uniform() * (end - start))
        }
    }

    /// Copies the template, runs a child per moment on the copy (the next only if the previous
    /// one was killed) and inspects what is left.
    private mutating func run(name: String, migration: TortureMigration, moments: [KillMoment]) async throws -> Outcome {
        let directory = try workspace.copyOfTemplate(named: name)
        let store = workspace.backend.storeURL(in: directory)
        var attempts: [Attempt] = []
        lastChildLog = ""
        for moment in moments where attempts.last.map({ $0.termination == .killed }) ?? true {
            attempts.append(try attempt(migration, store: store, moment: moment, errorLog: directory.appendingPathComponent("child-\(attempts.count).log")))
        }
        let finding = await inspector.inspect(store, migration: migration)
        switch finding {
        case .atV1, .atV2: workspace.remove(directory)
        case .lost, .torn, .error: break
        }
        let killed = attempts.filter { $0.termination == .killed }.count
        return Outcome(
            label: "\(name) \(migration.rawValue) (\(attempts.map(\.description).joined(separator: ", then ")))",
            finding: finding, killed: killed > 0, killedTwice: killed > 1, finished: attempts.last?.termination == .exited(0),
            childFailure: attempts.lazy.compactMap(\.failure).first,
            startSeconds: attempts.last?.startSeconds, childSeconds: attempts.last?.childSeconds ?? 0
        )
    }

    /// Runs one child on `store` and kills it at `moment`.
    private mutating func attempt(_ migration: TortureMigration, store: URL, moment: KillMoment, errorLog: URL) throws -> Attempt {
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
        if let log = try? String(contentsOf: errorLog, encoding: .utf8) { lastChildLog += log }
        let progress = child.lastReportedFraction.map { String(format: "%.3f", $0) } ?? "none"
        return Attempt(termination: termination, startSeconds: startSeconds, childSeconds: childSeconds,
                       description: "\(moment), last progress \(progress), \(termination)")
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
