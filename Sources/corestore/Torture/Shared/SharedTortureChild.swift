import Foundation

/// One `torture shared-child` process: its standard output and error go to files that are
/// read as they grow; a line on its standard input lets it start committing.
final class SharedTortureChild: @unchecked Sendable {
    /// What a child printed when it finished.
    struct Result {
        let count: Int
        let inserted: Int
        let duplicates: Int
        let deletions: Int
        let digest: String
        let latencies: [Double]
    }

    private let process = Process()
    private let input = Pipe()
    private let outputURL: URL
    private let errorURL: URL

    init(arguments: [String], directory: URL, name: String) throws {
        outputURL = directory.appendingPathComponent("\(name).out")
        errorURL = directory.appendingPathComponent("\(name).err")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        process.executableURL = TortureChildProcess.currentExecutable
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorURL)
        try process.run()
    }

    /// What the child wrote to standard error so far (its last 2,000 characters).
    var errors: String {
        String((try? String(contentsOf: errorURL, encoding: .utf8))?.suffix(2000) ?? "")
    }

    private var lines: [String] {
        ((try? String(contentsOf: outputURL, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Waits for a line starting with `prefix` (the child may also have exited); `nil` if none
    /// came by `deadline`.
    func waitForLine(prefix: String, until deadline: Date) -> String? {
        while Date() < deadline {
            if let line = lines.first(where: { $0.hasPrefix(prefix) }) { return line }
            if !process.isRunning { return lines.first(where: { $0.hasPrefix(prefix) }) }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return nil
    }

    /// Lets the child start committing.
    func go() {
        input.fileHandleForWriting.write(Data("go\n".utf8))
    }

    /// Waits for the child to exit; `false` if it still runs at `deadline`.
    func waitForExit(until deadline: Date) -> Bool {
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        return !process.isRunning
    }

    /// The child's exit status (once it exited).
    var exitStatus: Int32 { process.terminationStatus }

    /// The result the child printed; `nil` if it printed none.
    var result: Result? {
        let lines = self.lines
        guard let done = lines.first(where: { $0.hasPrefix("done ") })?.split(separator: " "), done.count == 6,
              let count = Int(done[1]), let inserted = Int(done[2]), let duplicates = Int(done[3]), let deletions = Int(done[4]) else { return nil }
        let latencyLine = lines.first(where: { $0.hasPrefix("latencies ") }) ?? "latencies "
        let latencies = latencyLine.dropFirst("latencies ".count).split(separator: ",").compactMap { Double($0) }
        return Result(count: count, inserted: inserted, duplicates: duplicates, deletions: deletions, digest: String(done[5]), latencies: latencies)
    }

    /// Ends the child if it still runs.
    func kill() {
        if process.isRunning { process.terminate() }
    }
}
