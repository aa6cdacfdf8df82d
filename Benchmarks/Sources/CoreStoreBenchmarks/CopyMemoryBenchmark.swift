import CoreStore
import CoreStoreLevelDB
import CoreStoreLMDB
import CoreStoreSQLite
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `corestore-bench --copy-memory PATH`: the peak memory and time of `corestore copy` (the
/// executable at PATH, a child process) on stores of growing size, through every backend:
/// lmdb → sqlite → leveldb → lmdb. Bounded memory shows as a peak that does not grow with the
/// number of objects.
struct CopyMemoryBenchmark {
    let corestore: URL
    let sizes: [Int]
    let directory: URL
    let progress: (String) -> Void

    struct Result {
        let objects: Int
        let from: String
        let to: String
        let seconds: Double
        let peakBytes: Int
    }

    func run() throws -> [Result] {
        var results: [Result] = []
        for size in sizes {
            let workspace = directory.appendingPathComponent("copy-\(size)")
            try? FileManager.default.removeItem(at: workspace)
            try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: workspace) }
            let source = workspace.appendingPathComponent("source.lmdb")
            progress("copy-memory: writing \(size) objects")
            try writeSource(size, at: source)
            var from = source
            for backend in ["sqlite", "leveldb", "lmdb"] {
                let to = workspace.appendingPathComponent("copy.\(backend)")
                progress("copy-memory: \(size) objects \(from.pathExtension) → \(backend)")
                let (seconds, peak) = try measure(["copy", from.path, to.path, "--quiet"])
                results.append(Result(objects: size, from: from.pathExtension, to: backend, seconds: seconds, peakBytes: peak))
                from = to
            }
        }
        return results
    }

    /// A new LMDB store of `count` benchmark items, written 50,000 per transaction.
    private func writeSource(_ count: Int, at url: URL) throws {
        let stack = DataStack(BenchItem.schema)
        try stack.addStorageAndWait(LMDBStore(fileURL: url, durability: .normal))
        var next: Int64 = 0
        while next < Int64(count) {
            let rows = BenchRow.dataSet(count: min(50_000, count - Int(next)), startingAt: next)
            try stack.perform(synchronous: { t in
                for row in rows { t.create(Into<BenchItem>()).assign(row) }
            })
            next += Int64(rows.count)
        }
    }

    /// Runs the executable with `arguments`; its wall time and peak resident size (`wait4`).
    private func measure(_ arguments: [String]) throws -> (Double, Int) {
        let argv = ([corestore.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let start = Date()
        guard posix_spawn(&pid, corestore.path, nil, nil, argv, environ) == 0 else {
            throw BenchmarkError.unexpected("cannot start \(corestore.path)")
        }
        var status: Int32 = 0
        var usage = rusage()
        guard wait4(pid, &status, 0, &usage) == pid else { throw BenchmarkError.unexpected("wait4 failed") }
        let seconds = Date().timeIntervalSince(start)
        guard status == 0 else { throw BenchmarkError.unexpected("corestore \(arguments.joined(separator: " ")) exited with status \(status)") }
        return (seconds, usage.ru_maxrss * 1024)
    }

    /// The results as a Markdown table.
    static func markdown(_ results: [Result]) -> String {
        var lines = ["| objects | copy | time | peak RSS (MiB) |", "| ---: | --- | ---: | ---: |"]
        for r in results {
            lines.append("| \(r.objects) | \(r.from) → \(r.to) | \(String(format: "%.1f", r.seconds)) s | \(r.peakBytes / (1 << 20)) |")
        }
        return lines.joined(separator: "\n")
    }
}
