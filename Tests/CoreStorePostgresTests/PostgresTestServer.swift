import Foundation

/// The PostgreSQL server the tests use: `CORESTORE_POSTGRES_URL` when it is set (as
/// `scripts/test.sh` sets it), otherwise a throwaway cluster that `scripts/postgres-cluster.sh`
/// starts for this process (installing PostgreSQL with apt-get when it is missing) and stops
/// when the process exits.
enum PostgresTestServer {
    /// The server's URL; a message saying why there is none when it cannot be started.
    static let url: Result<String, ServerUnavailable> = start()

    struct ServerUnavailable: Error, CustomStringConvertible {
        let description: String
    }

    /// The URL, or a thrown error saying why there is no server.
    static func requireURL() throws -> String {
        try url.get()
    }

    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/postgres-cluster.sh").path

    nonisolated(unsafe) private static var clusterDirectory: String?

    private static func start() -> Result<String, ServerUnavailable> {
        if let url = ProcessInfo.processInfo.environment["CORESTORE_POSTGRES_URL"], !url.isEmpty { return .success(url) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script, "start"]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            return .failure(ServerUnavailable(description: "cannot run \(script): \(error)"))
        }
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        var values: [String: String] = [:]
        for line in printed.split(separator: "\n") {
            for assignment in line.replacingOccurrences(of: "export ", with: "").split(separator: " ") {
                let parts = assignment.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { values[String(parts[0])] = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "'")) }
            }
        }
        guard process.terminationStatus == 0, let url = values["CORESTORE_POSTGRES_URL"], let directory = values["CORESTORE_POSTGRES_DIR"] else {
            return .failure(ServerUnavailable(description: "scripts/postgres-cluster.sh start failed: \(complaint)"))
        }
        clusterDirectory = directory
        atexit {
            guard let directory = PostgresTestServer.clusterDirectory else { return }
            let stop = Process()
            stop.executableURL = URL(fileURLWithPath: "/bin/bash")
            stop.arguments = [PostgresTestServer.script, "stop", directory]
            try? stop.run()
            stop.waitUntilExit()
        }
        return .success(url)
    }
}
