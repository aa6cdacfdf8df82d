import Foundation

/// The `corestore` executable built beside this test bundle (the test target depends on it, so
/// every `swift build --build-tests` and `swift test`, with any scratch path, builds it).
enum CorestoreExecutable {
    /// Where it may be: beside the test bundle. On Linux the bundle is an executable
    /// (`.build/<triple>/debug/CoreStorePackageTests.xctest`) that is `CommandLine.arguments[0]`,
    /// and `Bundle.main.bundleURL` is the build directory holding it — both lead to the same
    /// place (checked with `swift test` and with `--sanitize=thread --scratch-path .build-tsan`).
    static var candidates: [URL] {
        let bundleDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return [Bundle.main.bundleURL, bundleDirectory].map { $0.appendingPathComponent("corestore", isDirectory: false) }
    }

    /// The first candidate that is an executable file.
    static var url: URL? {
        candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Runs the executable with `arguments` — through `wrapper` (a program and its arguments,
    /// such as `setpriv …`) when one is given; returns its exit status and everything it printed
    /// (standard output and standard error together).
    static func run(_ arguments: [String], wrapper: [String] = []) throws -> (status: Int32, output: String) {
        guard let url else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "no corestore executable in \(candidates.map(\.path))"])
        }
        let process = Process()
        let pipe = Pipe()
        if let program = wrapper.first {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = wrapper.dropFirst() + [url.path] + arguments
        } else {
            process.executableURL = url
            process.arguments = arguments
        }
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Runs the executable with `arguments`; returns its exit status, standard output and
    /// standard error apart (through files, so that a large output cannot block the child).
    static func runSeparated(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        guard let url else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "no corestore executable in \(candidates.map(\.path))"])
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("corestore-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outURL = directory.appendingPathComponent("stdout")
        let errURL = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        process.standardOutput = out
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return (
            process.terminationStatus,
            String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
        )
    }
}
