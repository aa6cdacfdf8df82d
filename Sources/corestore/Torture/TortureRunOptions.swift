import ArgumentParser
import Foundation

/// The options every killing torture command shares: where its temporary directory goes, how
/// much it prints, and whether it keeps what failed.
struct TortureRunOptions: ParsableArguments {
    @Option(help: "Where to make the temporary directory (default: the system's temporary directory).")
    var directory: String?

    @Flag(help: "Print a line per run.")
    var verbose = false

    @Flag(help: "Keep the temporary directory when something fails, to look at the stores.")
    var keepFailures = false

    /// The directory the run's temporary directory goes into.
    var parentDirectory: URL {
        directory.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? FileManager.default.temporaryDirectory
    }
}

/// How a torture child reports to its parent: one line on standard output, written at once
/// (unbuffered), so the parent sees it as it happens.
enum TortureChildOutput {
    static func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
