import Foundation

/// The PostgreSQL server of the `postgres` backend: `--postgres-url URL` or the environment
/// variable `CORESTORE_POSTGRES_URL`, and the fresh schema each run uses on it.
enum PostgresBenchServer {
    /// The environment variable that names the server.
    static let environmentVariable = "CORESTORE_POSTGRES_URL"

    /// The server named by the environment, if any (an empty value names none).
    static var urlFromEnvironment: String? {
        ProcessInfo.processInfo.environment[environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `url`, or the error that says how to name a server.
    static func url(_ url: String?) throws -> String {
        guard let url else {
            throw BenchmarkError.usage("the postgres backend needs a server: set \(environmentVariable) or pass --postgres-url URL (scripts/bench.sh --backend postgres starts a throwaway one)")
        }
        return url
    }

    /// The schema of the run in `directory` (a fresh directory per run, named with a UUID):
    /// `bench_` and the directory's name in lower-case letters, digits and underscores, so
    /// that the subject and its clean-up agree on it without sharing state.
    static func schemaName(for directory: URL) -> String {
        let name = directory.lastPathComponent.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" }
        // PostgreSQL keeps 63 bytes of an identifier; the UUID at the end is what matters.
        return "bench_" + String(String(name).suffix(56))
    }
}
