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
        // The script runs through `popen`, whose `pclose` waits for it directly: Foundation's
        // `Process.waitUntilExit()` can wait here forever (the test runner's threads never
        // deliver the termination it waits for), which hung `swift test` run on its own.
        let complaints = FileManager.default.temporaryDirectory.appendingPathComponent("corestore-pg-start-\(getpid()).log").path
        guard let pipe = popen("/bin/bash '\(script)' start 2>'\(complaints)'", "r") else {
            return .failure(ServerUnavailable(description: "cannot run \(script): \(String(cString: strerror(errno)))"))
        }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, pipe)
            if count <= 0 { break }
            output += buffer[0..<count]
        }
        let status = pclose(pipe)
        let printed = String(decoding: output, as: UTF8.self)
        let complaint = (try? String(contentsOfFile: complaints, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: complaints)
        var values: [String: String] = [:]
        for line in printed.split(separator: "\n") {
            for assignment in line.replacingOccurrences(of: "export ", with: "").split(separator: " ") {
                let parts = assignment.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { values[String(parts[0])] = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "'")) }
            }
        }
        guard status == 0, let url = values["CORESTORE_POSTGRES_URL"], let directory = values["CORESTORE_POSTGRES_DIR"] else {
            return .failure(ServerUnavailable(description: "scripts/postgres-cluster.sh start failed: \(complaint)"))
        }
        clusterDirectory = directory
        atexit {
            guard let directory = PostgresTestServer.clusterDirectory else { return }
            if let pipe = popen("/bin/bash '\(PostgresTestServer.script)' stop '\(directory)' >/dev/null 2>&1", "r") { pclose(pipe) }
        }
        return .success(url)
    }
}
