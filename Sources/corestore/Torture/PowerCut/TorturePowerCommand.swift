import ArgumentParser
import CoreStore
import CoreStoreConformance
import Foundation

/// `corestore torture power`: proves that a commit survives a power cut once acknowledged (with
/// `.full` durability) and that a power cut never tears a commit. A child process commits
/// transfers (see ``CommitPlan``) with the power-cut recorder loaded (`LD_PRELOAD`), which
/// journals every write, sync, truncation and rename under the store's directory. The parent then
/// replays the journal through ``PowerCutFileSystem`` and, at random moments, writes out the
/// files as a power cut there would have left them, opens that image and checks every invariant
/// of ``CommitTortureModel`` against what the child had acknowledged by then.
struct TorturePowerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "power",
        abstract: "Replay a committing process's file operations as power cuts at random moments would leave them, and check that no commit is lost or torn.",
        discussion: """
            The child runs with the power-cut recorder (libPowerCutRecorder.so, built beside \
            corestore by 'swift build'). At each cut, everything synced is kept; of what was \
            not synced, a third of the cuts keep nothing, a third a prefix in order, and a \
            third any subset of its 4 KiB pieces. With --durability full, every commit \
            acknowledged before the cut must be there; with normal, a tail of them may be \
            missing. With either, the store must open, the balances must add up, the log must \
            have no gap and every commit must keep exactly its notes. Prints 'BACKEND: N cuts, \
            N lost, N torn (…)' and exits non-zero on any loss that is not allowed, tear or \
            error.

            Examples:
              corestore torture power --backend lmdb --cuts 1000
              corestore torture power --backend leveldb --durability normal --cuts 200 --verbose
            """
    )

    /// The environment variables the recorder reads.
    static let journalVariable = "CORESTORE_POWERCUT_JOURNAL"
    static let watchVariable = "CORESTORE_POWERCUT_WATCH"
    /// The recorder's file name beside the `corestore` executable.
    static let recorderFileName = "libPowerCutRecorder.so"

    @Option(help: "The store to cut the power of: \(TortureBackend.allCases.map(\.rawValue).joined(separator: ", ")).")
    var backend: TortureBackend = .sqlite

    @Option(help: "How many power cuts to simulate.")
    var cuts: Int = 1_000

    @Option(help: "How many commits the recorded child makes.")
    var commits: Int = 60

    @Option(help: "Accounts in the store.")
    var accounts: Int = 100

    @Option(help: "The durability of the store's commits: full (nothing acknowledged may be lost) or normal (a tail may be).")
    var durability: TortureDurability = .full

    @Option(help: "The seed of the transfers, the cut moments and the fate of unsynced writes.")
    var seed: UInt64 = 20_261_126

    @Option(help: ArgumentHelp(
        "Check the store against this durability's promise instead of its own, to show that the check catches what a weaker setting loses.",
        visibility: .hidden
    ))
    var promise: TortureDurability?

    @Option(help: "The recorder library (default: \(recorderFileName) beside this executable).")
    var recorder: String?

    @OptionGroup var options: TortureRunOptions

    func validate() throws {
        guard cuts > 0 else { throw ValidationError("--cuts must be positive") }
        guard commits > 0 else { throw ValidationError("--commits must be positive") }
        guard accounts >= 2 else { throw ValidationError("--accounts must be at least 2") }
    }

    func run() async throws {
        CoreStoreDefaults.logger = TortureLogger()
        let recorderURL = try locateRecorder()
        let workspace = try TortureWorkspace(backend: backend, parent: options.parentDirectory)
        var tally = PowerCutTally()
        defer {
            if options.keepFailures && !tally.isClean {
                print("kept \(workspace.root.path)")
            } else {
                workspace.remove()
            }
        }
        let recorded = workspace.root.appendingPathComponent("recorded", isDirectory: true)
        try FileManager.default.createDirectory(at: recorded, withIntermediateDirectories: true)
        let store = backend.storeURL(in: recorded)
        try CommitTortureModel.seed(accounts: accounts, at: store, backend: backend, durability: durability)
        let base = try PowerCutFileSystem.Base(directory: recorded)

        let journalURL = workspace.root.appendingPathComponent("journal")
        try record(store: store, watching: base.root, recorder: recorderURL, journal: journalURL, errorLog: workspace.root.appendingPathComponent("child.log"))
        let journal = try PowerCutJournal(contentsOf: journalURL)
        if options.verbose { print("\(backend.rawValue): \(journal.operations.count) file operations recorded, \(journal.bytes.count) bytes") }

        var random = SplitMix64(seed: seed)
        let moments = (0..<cuts).map { _ in random.below(journal.operations.count + 1) }.sorted()
        var fileSystem = PowerCutFileSystem(base: base, journal: journal)
        let inspector = CommitTortureInspector(backend: backend, durability: durability, accountCount: accounts)
        let image = workspace.root.appendingPathComponent("image", isDirectory: true)
        var acknowledged = 0
        var opened = false
        var applied = 0
        var kept = 0
        for (cut, moment) in moments.enumerated() {
            while applied < moment {
                let operation = journal.operations[applied]
                if case .mark(let text) = operation { Self.read(text, acknowledged: &acknowledged, opened: &opened) }
                fileSystem.apply(operation)
                applied += 1
            }
            let unsynced = PowerCutFileSystem.Unsynced.allCases[cut % PowerCutFileSystem.Unsynced.allCases.count]
            try fileSystem.writeImage(to: image, unsynced: unsynced, random: &random, isTransient: Self.isTransient)
            let imageStore = backend.storeURL(in: image)
            let finding = inspector.inspect(imageStore, acknowledged: acknowledged, tailMayBeLost: (promise ?? durability) == .normal)
            let failuresBefore = tally.failures.count
            tally.record(finding, cut: cut, unsynced: unsynced, acknowledged: acknowledged)
            if !opened { tally.cutsWhileOpening += 1 }
            if options.verbose {
                print("cut \(cut) after operation \(moment) of \(journal.operations.count), unsynced writes \(unsynced.rawValue): acknowledged \(acknowledged), found \(finding)")
            }
            if options.keepFailures && tally.failures.count > failuresBefore && kept < 5 {
                kept += 1
                try FileManager.default.moveItem(at: image, to: workspace.root.appendingPathComponent("failed-cut-\(cut)", isDirectory: true))
            } else {
                try FileManager.default.removeItem(at: image)
            }
        }
        for failure in tally.failures.prefix(20) { print(failure) }
        if tally.failures.count > 20 { print("… and \(tally.failures.count - 20) more") }
        print(tally.summary(backend: backend, durability: durability, commits: commits))
        if !tally.isClean { throw ExitCode.failure }
    }

    /// The recorder library: `--recorder`, or the one built beside this executable.
    private func locateRecorder() throws -> URL {
        let url = recorder.map { URL(fileURLWithPath: $0) }
            ?? TortureChildProcess.currentExecutable.deletingLastPathComponent().appendingPathComponent(Self.recorderFileName)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw TortureSetupError(message: "the power-cut recorder is not at \(url.path); build it with 'swift build --product PowerCutRecorder' (same configuration as corestore), or pass --recorder")
        }
        return url
    }

    /// Runs one uninterrupted child with the recorder, making `commits` commits.
    private func record(store: URL, watching root: String, recorder: URL, journal: URL, errorLog: URL) throws {
        let child = try CommitTortureChild(
            backend: backend, store: store, durability: durability, seed: seed, commits: commits,
            environment: ["LD_PRELOAD": recorder.path, Self.journalVariable: journal.path, Self.watchVariable: root],
            errorLog: errorLog
        )
        let termination = child.waitForExit(timeout: 900)
        guard termination == .exited(0), child.acknowledged == commits else {
            let log = (try? String(contentsOf: errorLog, encoding: .utf8)) ?? ""
            throw TortureSetupError(message: "the recorded child ended \(termination) after \(child.acknowledged ?? 0) of \(commits) commits\n\(log.suffix(2_000))")
        }
        guard FileManager.default.fileExists(atPath: journal.path) else {
            throw TortureSetupError(message: "the recorder wrote no journal: was \(recorder.path) loaded?")
        }
    }

    /// Follows the child's lines in the journal's marks.
    private static func read(_ text: String, acknowledged: inout Int, opened: inout Bool) {
        for line in text.split(separator: "\n") {
            if line.hasPrefix(CommitTortureChildCommand.ackPrefix), let serial = Int(line.dropFirst(CommitTortureChildCommand.ackPrefix.count)) {
                acknowledged = serial
            } else if line.hasPrefix(CommitTortureChildCommand.readyPrefix) {
                opened = true
            }
        }
    }

    /// Files no engine trusts after a restart, so a power cut's image leaves them out: LMDB's
    /// reader table and SQLite's WAL index, both rebuilt by the first process to open the store.
    static func isTransient(_ path: String) -> Bool {
        path.hasSuffix("/lock.mdb") || path.hasSuffix("-shm")
    }
}
