import Foundation
import Testing

/// Real processes on one PostgreSQL store: `corestore torture shared` starts several copies of
/// the `corestore` executable (built beside this test bundle), each committing with a list
/// monitor attached, and fails unless every monitor was told of every commit exactly once and
/// all end with the same list.
@Suite("Processes sharing a PostgreSQL store")
struct PostgresMultiProcessTests {
    /// The `corestore` executable beside the test bundle.
    static var corestore: URL? {
        let bundleDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return [Bundle.main.bundleURL, bundleDirectory]
            .map { $0.appendingPathComponent("corestore", isDirectory: false) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Runs `corestore` with `arguments`; its exit status and everything it printed.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let executable = try #require(corestore, "no corestore executable beside the test bundle")
        let process = Process()
        let pipe = Pipe()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func threeProcessesCommitAtOnceAndEveryMonitorSeesEveryCommit() throws {
        let url = try PostgresTestServer.requireURL()
        let (status, output) = try Self.run(["torture", "shared", "--url", url, "--processes", "3", "--commits", "40", "--timeout", "300"])
        #expect(status == 0, "\(output)")
        #expect(output.contains("120 committed, 120…120 in each list, 0 lost, every monitor identical"), "\(output)")
        #expect(output.contains("commit → callback in another process: median"), "\(output)")
    }

    @Test func aBadURLIsAClearError() throws {
        let (status, output) = try Self.run(["torture", "shared", "--url", "postgres://nobody:secret@127.0.0.1:1/none", "--processes", "2", "--commits", "1"])
        #expect(status != 0)
        #expect(output.contains("cannot connect to PostgreSQL at postgres://nobody@127.0.0.1:1/none"), "\(output)")
        #expect(!output.contains("secret"), "the password must never be printed: \(output)")
    }
}
