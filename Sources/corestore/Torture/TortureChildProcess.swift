import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A torture child process (`migrate-child`, `commit-child`), watched line by line so that it
/// can be killed at a chosen moment. Progress lines (of `migrate-child`) are tracked here; every
/// line also goes to the optional line handler.
final class TortureChildProcess: @unchecked Sendable {
    /// How the process ended.
    enum Termination: Equatable {
        /// Killed by the SIGKILL sent by ``kill()``.
        case killed
        /// Exited by itself with this status.
        case exited(Int32)
        /// Ended by another signal.
        case signaled(Int32)
        /// Still running when ``waitForExit(timeout:)`` gave up; killed then.
        case hung
    }

    private let process = Process()
    private let output = Pipe()
    private let lock = NSLock()
    private var lastFraction: Double?
    private var firstReport: Date?
    private var finishedCopying = false
    private let copied = DispatchSemaphore(value: 0)
    private let readerDone = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)
    private let onLine: (@Sendable (String) -> Void)?

    /// The executable of the running process, to run it again as a child.
    static var currentExecutable: URL {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: path)
        }
        return Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
    }

    /// A child running `executable` with `arguments` and this process's environment plus
    /// `environment`, its standard error going to `errorLog`; `onLine` gets each line it prints,
    /// on the thread that reads them.
    init(executable: URL, arguments: [String], environment: [String: String] = [:], errorLog: URL, onLine: (@Sendable (String) -> Void)? = nil) throws {
        self.onLine = onLine
        _ = FileManager.default.createFile(atPath: errorLog.path, contents: nil)
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        }
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorLog)
        process.standardInput = FileHandle.nullDevice
        process.terminationHandler = { [exited] _ in exited.signal() }
    }

    /// Starts the process and the thread that reads its lines.
    func start() throws {
        try process.run()
        try? output.fileHandleForWriting.close()
        try? (process.standardError as? FileHandle)?.close()
        let reader = Thread { [self] in readLines() }
        reader.start()
    }

    /// Waits until the child reports that every record is copied (the migration's last moments),
    /// at most `timeout` seconds; `false` if it did not (it may have ended).
    func waitUntilCopied(timeout: TimeInterval) -> Bool {
        copied.wait(timeout: .now() + timeout) == .success
    }

    /// The last fraction completed the child reported, `nil` before its first report.
    var lastReportedFraction: Double? {
        lock.withLock { lastFraction }
    }

    /// When the child printed its first progress line (the migration started), `nil` before.
    var firstReportDate: Date? {
        lock.withLock { firstReport }
    }

    /// Sends SIGKILL, unless the process has already ended.
    func kill() {
        guard process.isRunning else { return }
        _ = Glibc.kill(process.processIdentifier, SIGKILL)
    }

    /// Waits for the process to end (and its output to be read); kills it if it is still running
    /// after `timeout` seconds.
    func waitForExit(timeout: TimeInterval) -> Termination {
        let hung = exited.wait(timeout: .now() + timeout) == .timedOut
        if hung { kill() }
        process.waitUntilExit()
        readerDone.wait()
        if hung { return .hung }
        switch process.terminationReason {
        case .uncaughtSignal:
            return process.terminationStatus == SIGKILL ? .killed : .signaled(process.terminationStatus)
        case .exit:
            return .exited(process.terminationStatus)
        @unknown default:
            return .exited(process.terminationStatus)
        }
    }

    private func readLines() {
        let handle = output.fileHandleForReading
        var pending = Data()
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            pending.append(chunk)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                received(line: line)
            }
        }
        readerDone.signal()
    }

    private func received(line: String) {
        onLine?(line)
        guard line.hasPrefix(TortureChildCommand.progressPrefix),
              let fraction = Double(line.dropFirst(TortureChildCommand.progressPrefix.count)) else { return }
        let now = Date()
        let firstCompletion = lock.withLock { () -> Bool in
            if firstReport == nil { firstReport = now }
            lastFraction = fraction
            guard fraction >= 1, !finishedCopying else { return false }
            finishedCopying = true
            return true
        }
        if firstCompletion { copied.signal() }
    }
}
