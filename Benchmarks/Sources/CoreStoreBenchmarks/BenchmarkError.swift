/// Why a benchmark run stopped.
enum BenchmarkError: Error, CustomStringConvertible {
    /// A subject read something other than what the others read.
    case checksumMismatch(workload: Workload, subject: String, expected: Checksum, actual: Checksum)
    /// A subject's API answered in a way it should not have.
    case unexpected(String)
    /// The command line was wrong.
    case usage(String)

    var description: String {
        switch self {
        case .checksumMismatch(let workload, let subject, let expected, let actual):
            "\(subject) read \(actual) in \(workload.rawValue.uppercased()), the first subject read \(expected)"
        case .unexpected(let message): message
        case .usage(let message): message
        }
    }
}
