/// What one subject's runs of one workload measured.
struct Measurement: Sendable, Codable {
    /// One time per repetition, in seconds (W8: the median update of that repetition).
    var seconds: [Double] = []
    /// One peak resident size per repetition, in bytes.
    var peakBytes: [Int] = []

    /// The median time in seconds.
    var medianSeconds: Double { median(seconds) }
    /// The median peak resident size in bytes.
    var medianPeakBytes: Int { Int(median(peakBytes.map(Double.init))) }
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
