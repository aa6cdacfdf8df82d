import Foundation

/// Runs every subject of the chosen backends through the workloads, several times,
/// alternating the subjects' order, and checks that they all read the same data.
struct BenchmarkRunner {
    let size: WorkloadSize
    let repetitions: Int
    let backends: [Backend]
    /// The subjects to run (the others of a backend are left out).
    let roles: [SubjectKind.Role]
    /// Where the stores are made (each run in a fresh subdirectory, removed afterwards).
    let scratchDirectory: URL
    /// Stops after this workload of ``Workload/runOrder`` (skipping the final read, W14, W12 and
    /// W13), for profiling the workloads up to it; `nil` runs everything.
    let lastWorkload: Workload?
    /// The server of the `postgres` backend.
    let postgresURL: String?
    /// Progress lines (to standard error).
    let progress: (String) -> Void

    /// Measurements by backend, then subject role, then workload.
    typealias Results = [Backend: [SubjectKind.Role: [Workload: Measurement]]]

    func run() throws -> Results {
        var results: Results = [:]
        var reference = ChecksumReference()
        let rows = BenchRow.dataSet(count: size.rows)
        // The embedded backends' repetitions all run before the server's: a database server
        // keeps working after its own workloads (checkpoints spread over minutes, autovacuum),
        // and that work must not share the two cores with another backend's measurements.
        let passes = [backends.filter { !$0.isServer }, backends.filter(\.isServer)]
        for pass in passes where !pass.isEmpty {
            for repetition in 0..<repetitions {
                for backend in pass {
                    let kinds = backend.subjects(postgresURL: postgresURL).filter { roles.contains($0.role) }
                    // Rotate who goes first so that no subject always runs on a warmer machine.
                    for index in kinds.indices {
                        let kind = kinds[(index + repetition) % kinds.count]
                        progress("repetition \(repetition + 1)/\(repetitions): \(backend.rawValue) \(kind.role.rawValue)")
                        let measured = try runSequence(kind, backend: backend, rows: rows, reference: &reference)
                        for (workload, run) in measured {
                            results[backend, default: [:]][kind.role, default: [:]][workload, default: Measurement()].add(run)
                        }
                    }
                }
            }
        }
        return results
    }

    /// One subject on a fresh store: every workload in ``Workload/runOrder``, then a final
    /// full read that must match the other subjects' (so writes are checked as well).
    private func runSequence(_ kind: SubjectKind, backend: Backend, rows: [BenchRow], reference: inout ChecksumReference) throws -> [Workload: WorkloadRun] {
        let directory = scratchDirectory.appendingPathComponent("\(backend.rawValue)-\(kind.role.rawValue)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // After the subject below is released (its scope ends before the function returns).
        defer {
            if let cleanUp = kind.cleanUp {
                do { try cleanUp(directory) } catch { progress("warning: cleaning up after \(kind.role.rawValue) on \(backend.rawValue) failed: \(error)") }
            }
        }
        let name = "\(kind.role.rawValue) on \(backend.rawValue)"
        var measured: [Workload: WorkloadRun] = [:]
        do {
            // The subject (and its open store) is released at the end of this scope.
            let subject = try kind.make(directory)
            let singleRows = size.singleInsertRows
            let batchRows = size.batchInsertRows
            let importRows = size.importRows
            let updates = (0..<size.monitoredUpdates).map { k in
                (id: Int64(k * (size.rows / size.monitoredUpdates)), score: Double((k * 37) % 1000) + 0.5)
            }
            for workload in Workload.runOrder {
                PeakMemory.reset()
                let clock = ContinuousClock()
                var checksum: Checksum?
                var w8Durations: [Duration]?
                var seconds: Double
                let start = clock.now
                switch workload {
                case .w1: try subject.insert(rows)
                case .w2: checksum = try subject.fetchAll()
                case .w3: checksum = try subject.fetch(age: size.queriedAge)
                case .w4: checksum = try subject.fetchTopScores(in: size.scoreRange, limit: size.limit)
                case .w5: checksum = try subject.aggregate()
                case .w15: checksum = try subject.countPerAgeAndHighestID()
                case .w6: try subject.update(ids: size.updatedIDs)
                case .w7: try subject.delete(ids: size.deletedIDs)
                case .w8: w8Durations = try subject.monitoredUpdates(updates)
                case .w9: try subject.insertEach(singleRows)
                case .w10: try subject.insert(batchRows)
                case .w11: try subject.importUnique(importRows)
                case .w12, .w13, .w14alone, .w14: continue
                }
                seconds = (clock.now - start).seconds
                if let durations = w8Durations {
                    // Each update is timed on its own; their median stands for the repetition.
                    seconds = median(durations.map(\.seconds))
                }
                measured[workload] = WorkloadRun(seconds: seconds, peakBytes: PeakMemory.peakBytes() ?? 0)
                if let checksum {
                    try reference.check(checksum, workload: workload, subject: name)
                }
                if workload == lastWorkload { return measured }
            }
            try reference.check(try subject.fetchAll(), workload: nil, subject: name)
            for workload in Workload.concurrency {
                PeakMemory.reset()
                let clock = ContinuousClock()
                let start = clock.now
                let cpuAtStart = CPUTime.now()
                let readers = workload == .w14 ? 2 : 1
                guard let done = try subject.concurrentReads(readers: readers, fetches: size.concurrentFetches, maxAge: size.concurrentMaxAge, withWriter: workload == .w14) else { break }
                let seconds = (clock.now - start).seconds
                let cores = CPUTime.now().cores(since: cpuAtStart, over: seconds)
                let use = ConcurrencyUse(machineCores: cores.machine, processCores: cores.process, commitsPerSecond: seconds > 0 ? Double(done.commits) / seconds : 0)
                measured[workload] = WorkloadRun(seconds: seconds, peakBytes: PeakMemory.peakBytes() ?? 0, concurrency: use)
                progress("  \(workload.rawValue): \(done.rowsRead) rows in \(String(format: "%.3f", seconds)) s, \(done.commits) commits beside; cores busy: machine \(cores.machine.map { String(format: "%.2f", $0) } ?? "?"), this process \(String(format: "%.2f", cores.process))")
            }
            for workload in Workload.migrations {
                PeakMemory.reset()
                let clock = ContinuousClock()
                let start = clock.now
                guard try subject.migrate(workload) else { break }
                measured[workload] = WorkloadRun(seconds: (clock.now - start).seconds, peakBytes: PeakMemory.peakBytes() ?? 0)
            }
        }
        return measured
    }
}

/// The checksums the first subject read; every later subject must read the same.
struct ChecksumReference {
    private var expected: [Workload?: Checksum] = [:]

    /// Records `checksum` as the reference for `workload` (`nil`: the final state), or throws
    /// when it differs from the one recorded.
    mutating func check(_ checksum: Checksum, workload: Workload?, subject: String) throws {
        guard let reference = expected[workload] else {
            expected[workload] = checksum
            return
        }
        if reference != checksum {
            throw BenchmarkError.checksumMismatch(workload: workload ?? .w9, subject: subject + (workload == nil ? " (final state)" : ""), expected: reference, actual: checksum)
        }
    }
}
