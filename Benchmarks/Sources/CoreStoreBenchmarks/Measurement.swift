/// What one subject's runs of one workload measured.
struct Measurement: Sendable, Codable {
    /// One time per repetition, in seconds (W8: the median update of that repetition).
    var seconds: [Double] = []
    /// One peak resident size per repetition, in bytes.
    var peakBytes: [Int] = []

    /// W14, one per repetition: the cores the whole machine kept busy (where known).
    var machineCores: [Double] = []
    /// W14, one per repetition: the cores this process kept busy.
    var processCores: [Double] = []
    /// W14, one per repetition: the writer's commits a second.
    var commitsPerSecond: [Double] = []

    /// The median time in seconds.
    var medianSeconds: Double { median(seconds) }
    /// The median peak resident size in bytes.
    var medianPeakBytes: Int { Int(median(peakBytes.map(Double.init))) }

    /// Adds one repetition's run.
    mutating func add(_ run: WorkloadRun) {
        seconds.append(run.seconds)
        peakBytes.append(run.peakBytes)
        if let use = run.concurrency {
            if let machine = use.machineCores { machineCores.append(machine) }
            processCores.append(use.processCores)
            commitsPerSecond.append(use.commitsPerSecond)
        }
    }
}

/// What one repetition of one workload measured.
struct WorkloadRun {
    /// The time the workload took (W8: its median update).
    var seconds: Double
    /// The process's peak resident size during the workload.
    var peakBytes: Int
    /// W14 only: how busy the processors were.
    var concurrency: ConcurrencyUse?
}

/// How busy a W14 phase kept the processors, averaged over its wall time.
struct ConcurrencyUse {
    /// Cores the whole machine kept busy (this process, a database server's processes,
    /// anything else running); `nil` where the machine's counters cannot be read.
    var machineCores: Double?
    /// Cores this process kept busy.
    var processCores: Double
    /// The writer's commits a second (0 without a writer).
    var commitsPerSecond: Double
}

/// The middle value (the mean of the two middle ones for an even count); 0 when empty.
func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
