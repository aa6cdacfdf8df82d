import Foundation

/// The results as Markdown tables (one per backend) or as JSON.
struct Report {
    let results: BenchmarkRunner.Results
    let size: WorkloadSize
    let repetitions: Int
    let backends: [Backend]

    // MARK: Tables

    /// One Markdown table per backend: medians, ratios to the raw engine and GRDB, peak RSS.
    func markdown() -> String {
        var text = "\(size.rows.formatted()) rows, median of \(repetitions) repetitions; ratio = CoreStore ÷ baseline (lower is better).\n"
        for backend in backends {
            guard let subjects = results[backend] else { continue }
            let roles = backend.roles
            text += "\n### \(backend.title)\n\n"
            var header = ["Workload", "CoreStore"]
            var rule = ["---", "---:"]
            if roles.contains(.raw) { header += ["raw", "÷ raw"]; rule += ["---:", "---:"] }
            if roles.contains(.grdb) { header += ["GRDB", "÷ GRDB"]; rule += ["---:", "---:"] }
            header.append("peak RSS (MiB, " + roles.map(\.rawValue).joined(separator: " / ") + ")")
            rule.append("---:")
            text += "| " + header.joined(separator: " | ") + " |\n| " + rule.joined(separator: " | ") + " |\n"
            for workload in Workload.allCases {
                guard let coreStore = subjects[.coreStore]?[workload] else { continue }
                var cells = [workload.title(size), Self.time(coreStore.medianSeconds)]
                for role in [SubjectKind.Role.raw, .grdb] where roles.contains(role) {
                    let baseline = subjects[role]?[workload]
                    cells.append(baseline.map { Self.time($0.medianSeconds) } ?? "–")
                    cells.append(baseline.map { Self.ratio(coreStore.medianSeconds, $0.medianSeconds) } ?? "–")
                }
                cells.append(roles.map { subjects[$0]?[workload].map { Self.mebibytes($0.medianPeakBytes) } ?? "–" }.joined(separator: " / "))
                text += "| " + cells.joined(separator: " | ") + " |\n"
            }
            if let insert = subjects[.coreStore]?[.w1]?.medianSeconds, insert > 0 {
                let scaled = Workload.migrations.compactMap { workload in
                    subjects[.coreStore]?[workload].map { "\(workload.rawValue.uppercased()) ÷ W1 = \(Self.ratio($0.medianSeconds, insert))" }
                }
                if !scaled.isEmpty { text += "\nMigrations beside inserting the rows: " + scaled.joined(separator: ", ") + ".\n" }
            }
            if let alone = subjects[.coreStore]?[.w14alone]?.medianSeconds, let together = subjects[.coreStore]?[.w14]?.medianSeconds, alone > 0, together > 0 {
                // Two readers do twice the work of one: reads/s of both ÷ reads/s of one alone.
                let perSecondAlone = Double(size.concurrentRows * size.concurrentFetches) / alone
                let perSecondTogether = Double(2 * size.concurrentRows * size.concurrentFetches) / together
                text += String(format: "\nW14 reads/s: 1 reader %.0f; 2 readers beside a writer %.0f (%.2f× one reader).\n", perSecondAlone, perSecondTogether, perSecondTogether / perSecondAlone)
                if let alone = subjects[.coreStore]?[.w14alone], let together = subjects[.coreStore]?[.w14] {
                    text += Self.coresLine(alone: alone, together: together)
                }
            }
        }
        return text
    }

    /// W14's processor use, medians over the repetitions: what bounds two readers' speed-up on
    /// a machine with few cores, where the writer and any server processes take their share.
    private static func coresLine(alone: Measurement, together: Measurement) -> String {
        guard !alone.processCores.isEmpty, !together.processCores.isEmpty else { return "" }
        func cores(_ measurement: Measurement) -> String {
            let process = String(format: "%.2f", median(measurement.processCores))
            guard !measurement.machineCores.isEmpty else { return "\(process) in this process" }
            return String(format: "%.2f", median(measurement.machineCores)) + " busy on the machine, \(process) in this process"
        }
        let commits = String(format: "%.0f", median(together.commitsPerSecond))
        return "W14 cores (of \(ProcessInfo.processInfo.activeProcessorCount)): 1 reader \(cores(alone)); 2 readers beside a writer \(cores(together)), the writer committing \(commits) times a second.\n"
    }

    private static func time(_ seconds: Double) -> String {
        let milliseconds = seconds * 1000
        switch milliseconds {
        case ..<1: return String(format: "%.3f ms", milliseconds)
        case ..<100: return String(format: "%.1f ms", milliseconds)
        default: return "\(Int(milliseconds.rounded()).formatted()) ms"
        }
    }

    private static func ratio(_ value: Double, _ baseline: Double) -> String {
        baseline > 0 ? String(format: "%.2f", value / baseline) : "–"
    }

    private static func mebibytes(_ bytes: Int) -> String {
        "\(Int((Double(bytes) / 1_048_576).rounded()))"
    }

    // MARK: JSON

    /// The same data, with every sample, as JSON.
    func json() throws -> String {
        let document = JSONReport(
            rows: size.rows, batch: size.batch, repetitions: repetitions,
            backends: backends.compactMap { backend in
                guard let subjects = results[backend] else { return nil }
                return JSONReport.BackendResult(
                    backend: backend.rawValue, title: backend.title,
                    workloads: Workload.allCases.map { workload in
                        let bySubject = Dictionary(uniqueKeysWithValues: subjects.compactMap { role, measured in
                            measured[workload].map { (role.rawValue, JSONReport.SubjectResult(measured: $0)) }
                        })
                        let coreStore = subjects[.coreStore]?[workload]?.medianSeconds
                        func ratio(_ role: SubjectKind.Role) -> Double? {
                            guard let coreStore, let baseline = subjects[role]?[workload]?.medianSeconds, baseline > 0 else { return nil }
                            return coreStore / baseline
                        }
                        return JSONReport.WorkloadResult(
                            workload: workload.rawValue, title: workload.title(size), subjects: bySubject,
                            ratioToRaw: ratio(.raw), ratioToGRDB: ratio(.grdb)
                        )
                    }
                )
            }
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(document), as: UTF8.self)
    }
}

/// The shape of `--json` output.
struct JSONReport: Codable {
    var rows: Int
    var batch: Int
    var repetitions: Int
    var backends: [BackendResult]

    struct BackendResult: Codable {
        var backend: String
        var title: String
        var workloads: [WorkloadResult]
    }

    struct WorkloadResult: Codable {
        var workload: String
        var title: String
        /// By subject: `CoreStore`, `raw`, `GRDB`.
        var subjects: [String: SubjectResult]
        var ratioToRaw: Double?
        var ratioToGRDB: Double?
    }

    struct SubjectResult: Codable {
        var medianSeconds: Double
        var medianPeakRSSBytes: Int
        var samplesSeconds: [Double]
        /// W14 only: medians of the cores the machine and this process kept busy, and of the
        /// writer's commits a second.
        var medianMachineCores: Double?
        var medianProcessCores: Double?
        var medianCommitsPerSecond: Double?

        init(measured: Measurement) {
            medianSeconds = measured.medianSeconds
            medianPeakRSSBytes = measured.medianPeakBytes
            samplesSeconds = measured.seconds
            medianMachineCores = measured.machineCores.isEmpty ? nil : median(measured.machineCores)
            medianProcessCores = measured.processCores.isEmpty ? nil : median(measured.processCores)
            medianCommitsPerSecond = measured.commitsPerSecond.isEmpty ? nil : median(measured.commitsPerSecond)
        }
    }
}
