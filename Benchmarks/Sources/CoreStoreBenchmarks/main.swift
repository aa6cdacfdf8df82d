import Foundation

/// `corestore-bench [--quick] [--json] [--repetitions N] [--backend sqlite,lmdb,leveldb,memory,postgres] [--subject CoreStore,raw,GRDB] [--directory DIR] [--through W] [--postgres-url URL]` or `corestore-bench --copy-memory PATH [--copy-objects 100000,1000000]`
let usage = "usage: corestore-bench [--quick] [--json] [--repetitions N] [--backend sqlite,lmdb,leveldb,memory,postgres] [--subject CoreStore,raw,GRDB] [--directory DIR] [--through W] [--postgres-url URL]\n       corestore-bench --copy-memory CORESTORE_EXECUTABLE [--copy-objects 100000,1000000] [--directory DIR]"

struct Options {
    var size = WorkloadSize.full
    var json = false
    var repetitions: Int?
    /// The backends named by `--backend`; `nil`: the defaults (PostgreSQL only with a server).
    var namedBackends: [Backend]?
    /// The server of the `postgres` backend: `--postgres-url`, else `CORESTORE_POSTGRES_URL`.
    var postgresURL = PostgresBenchServer.urlFromEnvironment
    /// The backends to run.
    var backends: [Backend] { namedBackends ?? Backend.defaults(postgresURL: postgresURL) }
    var roles = [SubjectKind.Role.coreStore, .raw, .grdb]
    var directory = FileManager.default.temporaryDirectory.appendingPathComponent("corestore-bench")
    /// The last workload to run (for profiling one workload); `nil` runs them all.
    var lastWorkload: Workload?
    /// `--copy-memory PATH`: measure `corestore copy` (the executable at PATH) instead.
    var copyMemory: URL?
    /// The store sizes `--copy-memory` copies.
    var copyObjects = [100_000, 1_000_000]

    init(arguments: [String]) throws {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--quick": size = .quick
            case "--json": json = true
            case "--repetitions":
                guard let value = remaining.popFirst().flatMap(Int.init), value > 0 else {
                    throw BenchmarkError.usage("--repetitions needs a positive number\n\(usage)")
                }
                repetitions = value
            case "--backend":
                guard let value = remaining.popFirst() else { throw BenchmarkError.usage("--backend needs a list\n\(usage)") }
                namedBackends = try value.split(separator: ",").map { name in
                    guard let backend = Backend(rawValue: String(name)) else {
                        throw BenchmarkError.usage("unknown backend '\(name)' (sqlite, lmdb, leveldb, memory, postgres)\n\(usage)")
                    }
                    return backend
                }
            case "--subject":
                guard let value = remaining.popFirst() else { throw BenchmarkError.usage("--subject needs a list\n\(usage)") }
                roles = try value.split(separator: ",").map { name in
                    guard let role = SubjectKind.Role(rawValue: String(name)) else {
                        throw BenchmarkError.usage("unknown subject '\(name)' (CoreStore, raw, GRDB)\n\(usage)")
                    }
                    return role
                }
            case "--directory":
                guard let value = remaining.popFirst() else { throw BenchmarkError.usage("--directory needs a path\n\(usage)") }
                directory = URL(fileURLWithPath: value, isDirectory: true)
            case "--through":
                guard let value = remaining.popFirst(), let workload = Workload(rawValue: value.lowercased()),
                      Workload.runOrder.contains(workload) else {
                    throw BenchmarkError.usage("--through needs one of \(Workload.runOrder.map { $0.rawValue.uppercased() }.joined(separator: ", "))\n\(usage)")
                }
                lastWorkload = workload
            case "--postgres-url":
                guard let value = remaining.popFirst(), !value.isEmpty else { throw BenchmarkError.usage("--postgres-url needs a URL\n\(usage)") }
                postgresURL = value
            case "--copy-memory":
                guard let value = remaining.popFirst() else { throw BenchmarkError.usage("--copy-memory needs the path of the corestore executable\n\(usage)") }
                copyMemory = URL(fileURLWithPath: value)
            case "--copy-objects":
                guard let value = remaining.popFirst() else { throw BenchmarkError.usage("--copy-objects needs a list of sizes\n\(usage)") }
                copyObjects = try value.split(separator: ",").map {
                    guard let n = Int($0), n > 0 else { throw BenchmarkError.usage("--copy-objects: '\($0)' is not a positive number") }
                    return n
                }
            case "--help", "-h":
                print(usage)
                exit(0)
            default:
                throw BenchmarkError.usage("unknown argument '\(argument)'\n\(usage)")
            }
        }
        if backends.contains(.postgres) { _ = try PostgresBenchServer.url(postgresURL) }
    }
}

func standardError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

do {
    let options = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
    if let corestore = options.copyMemory {
        let results = try CopyMemoryBenchmark(corestore: corestore, sizes: options.copyObjects, directory: options.directory, progress: standardError).run()
        print(CopyMemoryBenchmark.markdown(results))
        exit(0)
    }
    let repetitions = options.repetitions ?? (options.size.rows == WorkloadSize.full.rows ? 5 : 3)
    #if DEBUG
    standardError("warning: a debug build; run `swift run -c release corestore-bench` for numbers worth reporting.")
    #endif
    let runner = BenchmarkRunner(
        size: options.size, repetitions: repetitions, backends: options.backends, roles: options.roles,
        scratchDirectory: options.directory, lastWorkload: options.lastWorkload, postgresURL: options.postgresURL,
        progress: standardError
    )
    let results = try runner.run()
    let report = Report(results: results, size: options.size, repetitions: repetitions, backends: options.backends)
    print(options.json ? try report.json() : report.markdown())
} catch {
    standardError("error: \(error)")
    exit(1)
}
