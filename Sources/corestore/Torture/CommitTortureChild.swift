import Foundation

/// One `commit-child` process on the torture store, with what it has printed: whether it is
/// ready and the last commit it acknowledged.
final class CommitTortureChild: @unchecked Sendable {
    private let process: TortureChildProcess
    private let lock = NSLock()
    private var lastAck: Int?
    private var readySerial: Int?
    private let ready = DispatchSemaphore(value: 0)
    /// When the process was spawned.
    let spawned = Date()

    /// Spawns the child on the store at `store`, with `environment` added to its environment.
    init(backend: TortureBackend, store: URL, durability: TortureDurability, seed: UInt64, commits: Int?, environment: [String: String] = [:], errorLog: URL) throws {
        var arguments = [
            "torture", "commit-child", "--backend", backend.rawValue, "--path", store.path,
            "--durability", durability.rawValue, "--seed", "\(seed)",
        ]
        if let commits { arguments += ["--commits", "\(commits)"] }
        let box = LineBox()
        process = try TortureChildProcess(
            executable: TortureChildProcess.currentExecutable, arguments: arguments, environment: environment, errorLog: errorLog,
            onLine: { line in box.child?.received(line) }
        )
        box.child = self
        try process.start()
    }

    /// Waits until the child has opened the store, at most `timeout` seconds; `false` if it
    /// did not (it may have ended).
    func waitUntilReady(timeout: TimeInterval) -> Bool {
        ready.wait(timeout: .now() + timeout) == .success
    }

    /// The last serial the child acknowledged, `nil` before its first acknowledgement.
    var acknowledged: Int? { lock.withLock { lastAck } }

    /// The last serial the child found in the log when it opened the store, `nil` before.
    var startSerial: Int? { lock.withLock { readySerial } }

    /// Sends SIGKILL unless the process has ended.
    func kill() { process.kill() }

    /// Waits for the process to end, killing it after `timeout` seconds.
    func waitForExit(timeout: TimeInterval) -> TortureChildProcess.Termination {
        process.waitForExit(timeout: timeout)
    }

    private func received(_ line: String) {
        if line.hasPrefix(CommitTortureChildCommand.ackPrefix), let serial = Int(line.dropFirst(CommitTortureChildCommand.ackPrefix.count)) {
            lock.withLock { lastAck = serial }
        } else if line.hasPrefix(CommitTortureChildCommand.readyPrefix), let serial = Int(line.dropFirst(CommitTortureChildCommand.readyPrefix.count)) {
            lock.withLock { readySerial = serial }
            ready.signal()
        }
    }

    /// Lets the line handler, made before `self` exists, reach it.
    private final class LineBox: @unchecked Sendable {
        weak var child: CommitTortureChild?
    }
}
