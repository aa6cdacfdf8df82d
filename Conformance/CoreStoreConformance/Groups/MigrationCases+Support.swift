import Foundation
import CoreStore
import CoreStoreStorage

extension MigrationCases {
    /// What `dataStack.async.addStorage(_:)` yielded, as text (`migrating 0.5`,
    /// `finished(migrationRequired: true)`), and the error it ended with.
    struct StreamReport {
        var events: [String] = []
        /// The `fractionCompleted` of the last `.migrating` progress object once the stream ended.
        var finalFraction: Double?
        var error: (any Error)?
    }

    /// Consumes `stack.async.addStorage(storage)` to its end. The stream is read by a task that
    /// runs on a queue of its own, so that waiting for it never occupies Swift's cooperative
    /// threads (the cases are synchronous).
    static func streamAddition(_ ctx: ConformanceContext, _ stack: DataStack, _ storage: any UpgradableStorage) throws -> StreamReport {
        try streamOpened(ctx, stack, storage)
    }

    private static func streamOpened<T: UpgradableStorage>(_ ctx: ConformanceContext, _ stack: DataStack, _ storage: T) throws -> StreamReport {
        let stream: AsyncThrowingStream<MigrationProgress<T>, any Error> = stack.async.addStorage(storage)
        let box = UncheckedStream(stream)
        let completion = Completion<UncheckedReport>()
        Task(executorPreference: QueueTaskExecutor()) {
            var report = StreamReport()
            var last: Progress?
            do {
                for try await event in box.stream {
                    switch event {
                    case .migrating(_, let progress):
                        last = progress
                        report.events.append("migrating")
                    case .finished(_, let migrationRequired):
                        report.events.append("finished(migrationRequired: \(migrationRequired))")
                    }
                }
            } catch {
                report.error = error
            }
            report.finalFraction = last?.fractionCompleted
            completion.deliver(UncheckedReport(report: report))
        }
        return try completion.wait(ctx, "the stream of dataStack.async.addStorage").report
    }

    /// The bytes of a closed store's data files: its location (a file, or a directory and
    /// everything in it) and ``StorageFactory/files(of:)``. Side files an engine keeps next to
    /// the location (SQLite's `-wal` and `-shm`) are not data files and are left out.
    static func dataFiles(_ ctx: ConformanceContext, _ store: any StorageInterface) throws -> [String: Data?] {
        store.close()
        var result: [String: Data?] = [:]
        if let location = ctx.factory.location(of: store) {
            for (path, data) in try StoreFiles.snapshot(at: location) { result[location.path + "/" + path] = data }
        }
        for file in ctx.factory.files(of: store) where FileManager.default.fileExists(atPath: file.path) {
            result[file.path] = try Data(contentsOf: file)
        }
        return result
    }

    /// The bytes of a closed store's data files after a plain open and close by a stack of its
    /// own version, and which of them merely opening the store changes.
    struct FileBaseline {
        let snapshot: [String: Data?]
        /// Paths whose bytes a plain open changes (LMDB's lock file, say); `nil` when a plain
        /// open adds or removes files (LevelDB writes a new manifest and log at every open), so
        /// that bytes cannot tell whether an operation that opens the store changed it — the
        /// cases then rely on the data a stack of the old version reads.
        let volatile: Set<String>?
    }

    /// Opens and closes `store` with a stack of `schema` (its own version) and snapshots its files
    /// before and after.
    static func baseline(_ ctx: ConformanceContext, _ store: any StorageInterface, _ schema: CoreStoreSchema) throws -> FileBaseline {
        let before = try dataFiles(ctx, store)
        try withStack(ctx, over: store, schema) { _ in }
        let after = try dataFiles(ctx, store)
        guard Set(before.keys) == Set(after.keys) else { return FileBaseline(snapshot: after, volatile: nil) }
        return FileBaseline(snapshot: after, volatile: Set(before.keys.filter { before[$0] != after[$0] }))
    }

    /// Fails unless the data files of `store` (closed first) are byte-identical to `baseline`,
    /// apart from those a plain open changes; checks nothing when a plain open adds or removes
    /// files.
    static func expectFilesUntouched(_ ctx: ConformanceContext, _ store: any StorageInterface, _ baseline: FileBaseline, _ what: String) throws {
        guard let volatile = baseline.volatile else { return }
        let now = try dataFiles(ctx, store)
        try FileCases.expectUntouched(ctx, baseline.snapshot.filter { !volatile.contains($0.key) }, now.filter { !volatile.contains($0.key) }, what)
    }
}

/// A stream handed to the task that reads it (streams of non-sendable elements are not
/// `Sendable`; only that task touches it).
private struct UncheckedStream<T: UpgradableStorage>: @unchecked Sendable {
    let stream: AsyncThrowingStream<MigrationProgress<T>, any Error>
    init(_ stream: AsyncThrowingStream<MigrationProgress<T>, any Error>) { self.stream = stream }
}

/// A report handed back from the reading task.
private struct UncheckedReport: @unchecked Sendable {
    let report: MigrationCases.StreamReport
}

/// Runs the jobs of the tasks that prefer it on a serial dispatch queue of its own.
final class QueueTaskExecutor: TaskExecutor, @unchecked Sendable {
    private let queue = DispatchQueue(label: "corestore.conformance.migrations.stream")

    /// Runs `job` on the queue.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
