import Foundation

/// The process's peak resident set size (Linux `VmHWM`), resettable between workloads.
enum PeakMemory {
    /// Starts a new peak at the current resident size (writes 5 to `/proc/self/clear_refs`);
    /// does nothing where that is not possible.
    static func reset() {
        // Not `Data.write(to:)`: that may write a temporary file and rename it, which /proc refuses.
        guard let file = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return }
        try? file.write(contentsOf: Data("5".utf8))
        try? file.close()
    }

    /// The peak resident size since the last ``reset()`` in bytes, or `nil` when unknown.
    static func peakBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kilobytes = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }
            return kilobytes.map { $0 * 1024 }
        }
        return nil
    }
}
