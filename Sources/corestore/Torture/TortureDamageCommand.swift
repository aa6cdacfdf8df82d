import ArgumentParser
import CoreStore
import CoreStoreConformance
import Foundation

/// `corestore torture damage`: damages copies of a store the way disks do (flipped bytes, zeroed
/// or overwritten pages, truncated or deleted files) and opens each in a child process that
/// prints everything in it. Each store ends in one of: refused with a clear error, read back
/// exactly, read back WRONG (silently different data), CRASHED the process, or HUNG; a store
/// refused when opening whose files the attempt changed is counted as modified (a store that
/// opens and then reports damage while reading was changed only as any open changes it).
struct TortureDamageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "damage",
        abstract: "Damage copies of a store and report what opening and reading each one does.",
        discussion: """
            Prints 'BACKEND: N damaged stores: N refused (N when opening), N exact, N wrong, \
            N crashed, N hung (N stores refused when opening were modified)' and exits non-zero \
            when any store was read wrong, crashed or hung.

            Examples:
              corestore torture damage --backend lmdb --stores 1000
              corestore torture damage --backend sqlite --stores 50 --verbose
            """
    )

    @Option(help: "The store to damage: \(TortureBackend.allCases.map(\.rawValue).joined(separator: ", ")).")
    var backend: TortureBackend = .sqlite

    @Option(help: "How many damaged copies to open.")
    var stores: Int = 100

    @Option(help: "The seed of the data and of the damage.")
    var seed: UInt64 = 20_261_126

    @OptionGroup var options: TortureRunOptions

    func validate() throws {
        guard stores > 0 else { throw ValidationError("--stores must be positive") }
    }

    /// What one damaged store did.
    enum Outcome: String {
        case refused, exact, wrong, crashed, hung
    }

    func run() async throws {
        CoreStoreDefaults.logger = TortureLogger()
        let workspace = try TortureWorkspace(backend: backend, parent: options.parentDirectory)
        defer { workspace.remove() }
        let template = workspace.template
        try FileManager.default.createDirectory(at: template, withIntermediateDirectories: true)
        try seed(backend.storeURL(in: template))
        let expected = try { () throws -> [String] in
            let stack = CommitTortureModel.stack()
            try stack.addStorageAndWait(backend.makeStore(at: backend.storeURL(in: template), durability: .full))
            return try TortureDamageChildCommand.dump(stack)
        }()
        let files = try Self.files(under: template)

        var random = SplitMix64(seed: seed)
        var tally: [Outcome: Int] = [:]
        var modified = 0
        var refusedOpening = 0
        var failures: [String] = []
        for index in 0..<stores {
            let copy = try workspace.copyOfTemplate(named: "store-\(index)")
            let damage = StoreDamage.random(files: files, random: &random)
            try damage.apply(under: copy, random: &random)
            let before = try Self.digests(under: copy)
            let (outcome, detail) = try open(backend.storeURL(in: copy), expected: expected)
            tally[outcome, default: 0] += 1
            var changed = false
            // Files the open added (SQLite's -wal and -shm) and the engines' runtime files (lock
            // tables, info logs) do not count; changed or removed data files do.
            let after = try Self.digests(under: copy)
            let changedFiles = before.filter { after[$0.key] != $0.value && !Self.runtimeFileNames.contains(URL(fileURLWithPath: $0.key).lastPathComponent) }
            let refusedAtOpen = outcome == .refused && !detail.hasPrefix(Self.whileReading)
            if refusedAtOpen { refusedOpening += 1 }
            if refusedAtOpen, !changedFiles.isEmpty {
                modified += 1
                changed = true
            }
            let line = "store \(index): \(damage) → \(outcome.rawValue)\(changed ? " (files changed)" : "")\(detail.isEmpty ? "" : ": \(detail)")"
            if options.verbose { print(line) }
            if outcome == .wrong || outcome == .crashed || outcome == .hung {
                failures.append(line)
                if options.keepFailures { continue }
            }
            workspace.remove(copy)
        }
        for failure in failures where !options.verbose { print(failure) }
        if options.keepFailures && !failures.isEmpty { print("kept \(workspace.root.path)") }
        let count = { (outcome: Outcome) in tally[outcome, default: 0] }
        print("\(backend.rawValue): \(stores) damaged stores: \(count(.refused)) refused (\(refusedOpening) when opening), \(count(.exact)) exact, \(count(.wrong)) wrong, \(count(.crashed)) crashed, \(count(.hung)) hung (\(modified) stores refused when opening were modified)")
        if count(.wrong) + count(.crashed) + count(.hung) > 0 { throw ExitCode.failure }
    }

    /// A store of ``CommitTortureModel`` with accounts, commits and notes (some pruned).
    private func seed(_ url: URL) throws {
        let stack = CommitTortureModel.stack()
        try stack.addStorageAndWait(backend.makeStore(at: url, durability: .full))
        let accounts = 200
        try stack.perform(synchronous: { t in
            for number in 0..<accounts {
                let account = t.create(Into<CommitTortureModel.Account>())
                account.number = number
                account.balance = CommitTortureModel.openingBalance
            }
        })
        var random = SplitMix64(seed: seed)
        for serial in 1...40 {
            let plan = CommitPlan(serial: serial, accountCount: accounts, random: &random)
            try stack.perform(synchronous: { t in try plan.apply(in: t) })
        }
    }

    /// Opens the store at `url` in a child process; what it did, with a detail for the report.
    private func open(_ url: URL, expected: [String]) throws -> (Outcome, String) {
        let process = Process()
        process.executableURL = TortureChildProcess.currentExecutable
        process.arguments = ["torture", "damage-child", "--backend", backend.rawValue, "--path", url.path]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        // Read both pipes while the child runs, so that a large dump cannot block it.
        let collected = PipeCollector(output: output, errors: errors)
        if exited.wait(timeout: .now() + 60) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return (.hung, "no answer within 60 s")
        }
        process.waitUntilExit()
        let (printed, errorText) = collected.wait()
        if process.terminationReason == .uncaughtSignal {
            return (.crashed, "signal \(process.terminationStatus); " + Self.lastLine(errorText))
        }
        switch process.terminationStatus {
        case 0:
            let lines = printed.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            guard lines.last(where: { !$0.isEmpty }) == "end" else { return (.wrong, "the dump did not finish") }
            let dump = Array(lines.prefix { $0 != "end" })
            if dump == expected { return (.exact, "") }
            let first = zip(dump, expected).first { $0 != $1 }
            return (.wrong, first.map { "'\(Self.clip($0.0))' instead of '\(Self.clip($0.1))'" } ?? "\(dump.count) lines instead of \(expected.count)")
        case TortureDamageChildCommand.refusedStatus:
            return (.refused, Self.lastLine(errorText))
        case TortureDamageChildCommand.refusedWhileReadingStatus:
            return (.refused, Self.whileReading + Self.lastLine(errorText))
        default:
            return (.crashed, "exit status \(process.terminationStatus); " + Self.lastLine(errorText))
        }
    }

    /// The start of the detail of a store refused while reading, once open.
    static let whileReading = "while reading: "

    /// At most 120 characters of a dump line, for the report.
    private static func clip(_ line: String) -> String {
        line.count <= 120 ? line : line.prefix(117) + "..."
    }

    private static func lastLine(_ text: String) -> String {
        String(text.split(separator: "\n").last ?? "").prefix(200).description
    }

    /// Files an engine rewrites on every open whatever they held: LMDB's reader table, LevelDB's
    /// lock and info logs.
    static let runtimeFileNames: Set<String> = ["lock.mdb", "LOCK", "LOG", "LOG.old"]

    /// The regular files under `root`, relative paths and sizes.
    static func files(under root: URL) throws -> [(path: String, size: Int)] {
        let fileManager = FileManager.default
        var files: [(String, Int)] = []
        for case let path as String in fileManager.enumerator(atPath: root.path) ?? FileManager.DirectoryEnumerator() {
            let attributes = try fileManager.attributesOfItem(atPath: root.appendingPathComponent(path).path)
            guard attributes[.type] as? FileAttributeType == .typeRegular else { continue }
            files.append((path, (attributes[.size] as? NSNumber)?.intValue ?? 0))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    /// A digest of every file under `root`, to tell whether an open changed them.
    static func digests(under root: URL) throws -> [String: UInt64] {
        var digests: [String: UInt64] = [:]
        for (path, _) in try files(under: root) {
            var h: UInt64 = 0xCBF2_9CE4_8422_2325
            for byte in try Data(contentsOf: root.appendingPathComponent(path)) { h = (h ^ UInt64(byte)) &* 0x100_0000_01B3 }
            digests[path] = h
        }
        return digests
    }
}

/// Reads a child's standard output and error on background threads until they close.
private final class PipeCollector: @unchecked Sendable {
    private var output = Data(), errors = Data()
    private let group = DispatchGroup()

    init(output: Pipe, errors: Pipe) {
        group.enter()
        group.enter()
        DispatchQueue.global().async { [self] in
            output.fileHandleForWriting.closeFile()
            self.output = output.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        DispatchQueue.global().async { [self] in
            errors.fileHandleForWriting.closeFile()
            self.errors = errors.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
    }

    /// Everything the child printed, once both pipes are closed.
    func wait() -> (String, String) {
        group.wait()
        return (String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
    }
}
