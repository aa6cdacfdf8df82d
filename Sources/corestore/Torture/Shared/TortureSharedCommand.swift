import ArgumentParser
import CoreStore
import CoreStorePostgres
import CoreStoreSQLite
import Foundation

/// `corestore torture shared`: several processes commit to one PostgreSQL store (or one SQLite
/// file) at once, each
/// with a list monitor on every entry; checks that nothing is lost and that every process's
/// monitor ends with the same list, having been told of every entry exactly once, and reports
/// how long a commit took to reach the other processes' observers.
struct TortureSharedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shared",
        abstract: "Several processes commit to one PostgreSQL store (or SQLite file) with monitors attached: nothing lost, every monitor the same.",
        discussion: """
            Starts --processes copies of this program (`torture shared-child`) on a new schema \
            of the database at --url, or with --sqlite on a new SQLite file in a temporary \
            directory. Each attaches a list monitor to every entry, then (once \
            all are ready) commits --commits entries, one per transaction, and waits until its \
            monitor has reported every process's entries. Fails unless every process's list \
            holds all processes × commits entries, in the same order, each reported once by an \
            insert callback and none deleted. Prints the latency from the start of a commit in \
            one process to the insert callback in another (median and 99th percentile) and the \
            commits per second. The schema is dropped at the end.

            Example:
              corestore torture shared --url postgres://me@localhost/scratch --processes 4 --commits 2500
              corestore torture shared --sqlite --processes 4 --commits 500
            """
    )

    @Option(help: "The PostgreSQL database (postgres://user[:password]@host[:port]/database).")
    var url: String?

    @Flag(help: "Share a new SQLite file instead of a PostgreSQL database.")
    var sqlite = false

    @Option(help: "How many processes commit at once.")
    var processes: Int = 4

    @Option(help: "How many commits each process makes.")
    var commits: Int = 2500

    @Option(help: "How long the processes may take, in seconds.")
    var timeout: Double = 600

    func validate() throws {
        guard (url == nil) == sqlite else { throw ValidationError("give either --url or --sqlite") }
        guard processes >= 2 else { throw ValidationError("--processes must be at least 2") }
        guard commits >= 1 else { throw ValidationError("--commits must be at least 1") }
    }

    func run() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("corestore-shared-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storeArguments: [String]
        let store: any StorageInterface
        if let url {
            let schema = "torture_shared_\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
            storeArguments = ["--url", url, "--schema", schema]
            store = PostgresStore(url: url, schemaName: schema)
        } else {
            let path = directory.appendingPathComponent("shared.sqlite").path
            storeArguments = ["--path", path]
            store = SQLiteStore(fileURL: URL(fileURLWithPath: path))
        }
        // The store is created once, before the processes add it.
        let creator = DataStack(SharedTortureModel.schema)
        try creator.addStorageAndWait(store)
        print("torture shared: \(processes) processes × \(commits) commits on \(store.storeDescription)")
        defer { try? store.erase() }

        let children = try (0..<processes).map { index in
            try SharedTortureChild(
                arguments: ["torture", "shared-child"] + storeArguments + ["--process", "\(index)",
                            "--processes", "\(processes)", "--commits", "\(commits)", "--timeout", "\(timeout)"],
                directory: directory, name: "child-\(index)"
            )
        }
        defer { children.forEach { $0.kill() } }
        let deadline = Date().addingTimeInterval(timeout)
        for child in children {
            guard child.waitForLine(prefix: "ready", until: deadline) != nil else {
                throw SharedTortureFailure(message: "a process did not get ready: \(child.errors)")
            }
        }
        let start = Date()
        children.forEach { $0.go() }
        var results: [SharedTortureChild.Result] = []
        for (index, child) in children.enumerated() {
            guard child.waitForExit(until: deadline.addingTimeInterval(10)) else {
                throw SharedTortureFailure(message: "process \(index) did not finish within \(Int(timeout)) s: \(child.errors)")
            }
            guard child.exitStatus == 0, let result = child.result else {
                throw SharedTortureFailure(message: "process \(index) failed (exit status \(child.exitStatus)): \(child.errors)")
            }
            results.append(result)
        }
        let elapsed = Date().timeIntervalSince(start)
        try report(results, elapsed: elapsed)
    }

    private func report(_ results: [SharedTortureChild.Result], elapsed: TimeInterval) throws {
        let total = processes * commits
        var problems: [String] = []
        for (index, result) in results.enumerated() {
            if result.count != total { problems.append("process \(index)'s list holds \(result.count) entries, not \(total)") }
            if result.inserted != total { problems.append("process \(index) was told of \(result.inserted) inserts, not \(total)") }
            if result.duplicates > 0 { problems.append("process \(index) was told of \(result.duplicates) entries twice") }
            if result.deletions > 0 { problems.append("process \(index) was told of \(result.deletions) deletions") }
        }
        let digests = Set(results.map(\.digest))
        if digests.count != 1 { problems.append("the processes' lists differ (\(digests.count) different contents)") }
        let latencies = results.flatMap(\.latencies).sorted()
        func percentile(_ p: Double) -> String {
            guard !latencies.isEmpty else { return "–" }
            let value = latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]
            return String(format: "%.1f ms", value * 1000)
        }
        print("  entries: \(total) committed, \(results.map(\.count).min() ?? 0)…\(results.map(\.count).max() ?? 0) in each list, \(problems.isEmpty ? "0 lost, every monitor identical" : "MISMATCH")")
        print("  commit → callback in another process: median \(percentile(0.5)), p99 \(percentile(0.99)) (\(latencies.count) callbacks)")
        print(String(format: "  throughput: %.0f commits/s over %.1f s", Double(total) / elapsed, elapsed))
        if !problems.isEmpty {
            for problem in problems { print("  FAILED \(problem)") }
            throw ExitCode.failure
        }
    }
}

/// Why `torture shared` stopped before it could check anything.
struct SharedTortureFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { "torture shared: \(message)" }
}
