import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Progress of long work (copy, dump, load, check, migrate, conformance) on standard error.
///
/// On a terminal: one line redrawn at most ten times a second, `label [#####-----] 45%
/// 12,345/27,000 objects  3,210/s  ETA 0:04` (the unit is the work's), cleared when the work
/// ends. Otherwise (a pipe, a
/// file, CI): nothing for the first two seconds, so quick work stays silent; then a plain line
/// every five seconds and one at the end. `--quiet` turns it off. Written here rather than taken
/// from a library: the only candidate on this machine's mirror, console-kit, would bring
/// SwiftNIO into the command-line tool for one progress line.
final class ProgressReporter {
    private let label: String
    private let unit: String
    /// The number of objects the work has, when known (it may become known once the work starts).
    var total: Int?
    private let enabled: Bool
    private let isTerminal: Bool
    private let started = Date()
    private var lastDrawn = Date.distantPast
    private var printedAny = false
    private var done = 0

    /// A reporter for work of `total` things counted in `unit` (`nil`: unknown); silent when
    /// `quiet`.
    init(_ label: String, total: Int?, unit: String = "objects", quiet: Bool) {
        self.label = label
        self.unit = unit
        self.total = total
        self.enabled = !quiet
        self.isTerminal = isatty(STDERR_FILENO) == 1
    }

    /// `done` objects are done.
    func update(_ done: Int) {
        self.done = done
        guard enabled else { return }
        let now = Date()
        if isTerminal {
            guard now.timeIntervalSince(lastDrawn) >= 0.1 else { return }
            write("\r\u{1B}[2K" + line(now))
        } else {
            guard now.timeIntervalSince(started) >= 2, now.timeIntervalSince(lastDrawn) >= 5 else { return }
            write(line(now) + "\n")
        }
        lastDrawn = now
        printedAny = true
    }

    /// The work ended: clears the terminal line, or prints the last plain line when earlier
    /// ones were printed.
    func finish() {
        guard enabled, printedAny else { return }
        if isTerminal {
            write("\r\u{1B}[2K")
        } else {
            write(line(Date()) + "\n")
        }
    }

    private func line(_ now: Date) -> String {
        let elapsed = max(now.timeIntervalSince(started), 0.001)
        let rate = Double(done) / elapsed
        var text = label + " "
        if let total, total > 0 {
            let fraction = min(1, Double(done) / Double(total))
            if isTerminal {
                let width = 24
                let filled = Int(fraction * Double(width))
                text += "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            }
            text += "\(Int(fraction * 100))% \(done.formatted)/\(total.formatted) \(unit)"
            if rate > 0, done < total {
                text += "  \(Int(rate).formatted)/s  ETA \(Self.duration(Double(total - done) / rate))"
            }
        } else {
            text += "\(done.formatted) \(unit)  \(Int(rate).formatted)/s"
        }
        return text
    }

    private static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded(.up))
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
