import Foundation

/// The `corestore` executable built beside this test bundle (the test target depends on it, so
/// every `swift build --build-tests` and `swift test`, with any scratch path, builds it).
enum CorestoreExecutable {
    /// The directories that may hold it: the test bundle's (on Linux the `.xctest` is an
    /// executable in the build directory, so `Bundle.main` is that directory and
    /// `CommandLine.arguments[0]` the bundle itself), and the parent of a macOS `.xctest` bundle.
    static var candidates: [URL] {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return [Bundle.main.bundleURL, bundle, Bundle.main.bundleURL.deletingLastPathComponent()]
            .map { $0.appendingPathComponent("corestore", isDirectory: false) }
    }

    /// The first candidate that is an executable file.
    static var url: URL? {
        candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Runs the executable with `arguments`; returns its exit status and everything it printed
    /// (standard output and standard error together).
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        guard let url else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "no corestore executable in \(candidates.map(\.path))"])
        }
        let process = Process()
        let pipe = Pipe()
        process.executableURL = url
        process.arguments = arguments
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
