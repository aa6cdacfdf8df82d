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
        let anonymousPeakBytes: Int
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
                let measured = try measure(["copy", from.path, to.path, "--quiet"])
                results.append(Result(objects: size, from: from.pathExtension, to: backend, seconds: measured.seconds, peakBytes: measured.peak, anonymousPeakBytes: measured.anonymous))
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

    /// Runs the executable with `arguments`; its wall time, and the peaks of its resident size
    /// and of the anonymous (heap and stack) part of it, sampled from `/proc/PID/status` every
    /// 20 ms (`wait4`'s `ru_maxrss` is no use here: it keeps the parent's high-water mark across
    /// the spawn). The rest of the resident size is file pages an engine maps (LMDB's map),
    /// which the kernel reclaims as needed.
    private func measure(_ arguments: [String]) throws -> (seconds: Double, peak: Int, anonymous: Int) {
        let argv = ([corestore.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let start = Date()
        guard posix_spawn(&pid, corestore.path, nil, nil, argv, environ) == 0 else {
            throw BenchmarkError.unexpected("cannot start \(corestore.path)")
        }
        var status: Int32 = 0
        var usage = rusage()
        var anonymous = 0
        var resident = 0
        while true {
            let waited = wait4(pid, &status, WNOHANG, &usage)
            if waited == pid { break }
            guard waited == 0 else { throw BenchmarkError.unexpected("wait4 failed") }
            resident = max(resident, Self.statusBytes("VmRSS:", of: pid))
            anonymous = max(anonymous, Self.statusBytes("RssAnon:", of: pid))
            usleep(20_000)
        }
        let seconds = Date().timeIntervalSince(start)
        guard status == 0 else { throw BenchmarkError.unexpected("corestore \(arguments.joined(separator: " ")) exited with status \(status)") }
        return (seconds, resident, anonymous)
    }

    /// A size line (`VmRSS:`, `RssAnon:`) of a running process's status, in bytes (0 once it
    /// is gone).
    private static func statusBytes(_ field: String, of pid: pid_t) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(field) {
            return (line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) } ?? 0) * 1024
        }
        return 0
    }

    /// The results as a Markdown table.
    static func markdown(_ results: [Result]) -> String {
        var lines = ["| objects | copy | time | peak RSS (MiB) | of which heap, peak (MiB) |", "| ---: | --- | ---: | ---: | ---: |"]
        for r in results {
            lines.append("| \(r.objects) | \(r.from) → \(r.to) | \(String(format: "%.1f", r.seconds)) s | \(r.peakBytes / (1 << 20)) | \(r.anonymousPeakBytes / (1 << 20)) |")
        }
        return lines.joined(separator: "\n")
    }
}
