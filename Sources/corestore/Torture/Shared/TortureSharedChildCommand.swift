import ArgumentParser
import CoreStore
import CoreStorePostgres
import CoreStoreSQLite
import Foundation

/// `corestore torture shared-child` (hidden): one of the processes of `torture shared`. Adds
/// the store, attaches a list monitor to every entry, prints `ready`, waits for a line on
/// standard input (so that every process has its monitor before anyone commits), commits
/// `--commits` entries one transaction each, waits until its monitor holds every process's
/// entries, and prints `done COUNT INSERTED DUPLICATES DELETIONS DIGEST` and
/// `latencies S,S,…` (seconds).
struct TortureSharedChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shared-child",
        abstract: "Commit entries to a shared PostgreSQL store or SQLite file while monitoring all of them (run by 'torture shared').",
        shouldDisplay: false
    )

    @Option(help: "The PostgreSQL database.")
    var url: String?

    @Option(help: "The store's schema in the PostgreSQL database.")
    var schema: String?

    @Option(help: "The SQLite file (instead of --url).")
    var path: String?

    @Option(help: "This process's number.")
    var process: Int

    @Option(help: "How many processes commit.")
    var processes: Int

    @Option(help: "How many commits each process makes.")
    var commits: Int

    @Option(help: "How long to wait for the other processes' entries, in seconds.")
    var timeout: Double = 600

    func run() throws {
        CoreStoreDefaults.logger = DefaultLogger(minimumLevel: .warning)
        let stack = DataStack(SharedTortureModel.schema)
        if let url, let schema {
            try stack.addStorageAndWait(PostgresStore(url: url, schemaName: schema))
        } else if let path {
            try stack.addStorageAndWait(SQLiteStore(fileURL: URL(fileURLWithPath: path)))
        } else {
            throw ValidationError("give --url and --schema, or --path")
        }
        let deliveries = DispatchQueue(label: "corestore.torture.shared.deliveries")
        let list = try stack.monitorList(
            From<SharedTortureModel.Entry>().orderBy(.ascending(\.$process), .ascending(\.$index)),
            deliveryQueue: deliveries
        )
        let recorder = SharedTortureRecorder(ownProcess: process)
        list.addObserver(recorder)
        TortureChildOutput.emit("ready")
        _ = readLine()

        for index in 0..<commits {
            try stack.perform(synchronous: { transaction in
                let entry = transaction.create(Into<SharedTortureModel.Entry>())
                entry.process = process
                entry.index = index
                entry.stamp = Date().timeIntervalSince1970
            })
        }

        let total = processes * commits
        let deadline = Date().addingTimeInterval(timeout)
        while recorder.counts.inserted < total && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        let entries = deliveries.sync { list.objectsInAllSections().map { "\($0.process):\($0.index)" } }
        var digest: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in entries.joined(separator: ",").utf8 { digest = (digest ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let counts = recorder.counts
        TortureChildOutput.emit("done \(entries.count) \(counts.inserted) \(counts.duplicates) \(counts.deletions) \(String(digest, radix: 16))")
        TortureChildOutput.emit("latencies " + recorder.latencies.map { String(format: "%.6f", $0) }.joined(separator: ","))
    }
}
