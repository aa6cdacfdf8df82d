import ArgumentParser
import CoreStore
import CoreStoreStorage
import Foundation

/// `corestore copy FROM TO`: every object, relationship, index and the metadata of a store, into
/// a new store of any backend.
struct CopyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy a store to another backend (or the same one), verified, all or nothing.",
        discussion: """
            Reads the source from one snapshot, a page at a time, and writes the copy beside \
            TO under a temporary name, in batches, keeping every object's key, its relationships \
            and the stored metadata (model version, schema, version lock); the copy builds its \
            own indexes. The copy is then read back and compared with the source, entity by \
            entity (object counts and a digest of every object), and only then moved to TO. An \
            interrupted or failed copy leaves TO as it was; the temporary store is removed (after \
            a kill, by the next copy to TO). An existing TO is replaced only with --force. The \
            copy's next new object gets a key above every copied one.

            Stop the app first: an app with the store open would not see this change. A store \
            another process has open is refused, naming the process (LMDB, LevelDB, and SQLite \
            in WAL mode show it through their file locks).

            The target backend comes from --to-backend or TO's extension: .sqlite, .sqlite3, \
            .db (SQLite), .lmdb (LMDB), .leveldb, .ldb (LevelDB).

            Examples:
              corestore copy App.sqlite App.lmdb
              corestore copy data/store App.leveldb --from-backend lmdb
              corestore copy App.lmdb App.sqlite --force
            """
    )

    @Argument(help: "The store to copy: a SQLite file, or an LMDB or LevelDB directory.")
    var from: String

    @Argument(help: "Where the copy goes; must not exist unless --force.")
    var to: String

    @Option(help: "The source's backend, when its files should not decide.")
    var fromBackend: StoreBackend?

    @Option(help: "The copy's backend, when TO's extension does not say.")
    var toBackend: StoreBackend?

    @Flag(help: "Replace TO when it exists.")
    var force = false

    @Option(help: "Objects read and written at a time.")
    var batchSize = 1_000

    @Flag(help: "Print nothing when the copy succeeds.")
    var quiet = false

    func validate() throws {
        if batchSize < 1 { throw ValidationError("--batch-size must be at least 1") }
    }

    func run() throws {
        let source = try OpenedStore.open(path: from, backend: fromBackend, toolAction: "copy it")
        let schema = try source.requireSchema()
        let target = URL(fileURLWithPath: to).standardizedFileURL
        guard let backend = toBackend ?? StoreBackend.named(byExtensionOf: target) else {
            throw StoreToolError("cannot tell the backend of \(to) from its extension; give --to-backend sqlite, lmdb or leveldb")
        }
        guard target.path != source.url.standardizedFileURL.path else {
            throw StoreToolError("\(to) is the store being copied")
        }
        if FileManager.default.fileExists(atPath: target.path) {
            guard force else { throw StoreToolError("\(to) exists; add --force to replace it") }
            if let existing = try? StoreBackend.detect(at: target) {
                try existing.refuseIfOpenElsewhere(target, toolAction: "replace it")
            }
        }
        let workspace = try StoreCopyWorkspace(beside: target)
        defer { workspace.remove() }
        let copyURL = workspace.storeURL(for: backend)
        let written = try write(source, schema: schema, to: backend.makeStore(at: copyURL) as? any MigratableStorage, backend: backend)
        let verified = try Self.contents(of: OpenedStore.open(path: copyURL.path, backend: backend), schema: schema)
        for entity in schema.entities where !entity.isAbstract && written[entity.name] != verified[entity.name] {
            throw StoreToolError("the copy of \(entity.name) does not read back as written (\(written[entity.name]?.objects ?? 0) objects written, \(verified[entity.name]?.objects ?? 0) read); \(to) was left as it was")
        }
        try workspace.moveStore(at: copyURL, backend: backend, to: target)
        if !quiet {
            let objects = written.values.reduce(0) { $0 + $1.objects }
            print("Copied \(objects.formatted) objects of \(written.count) entities from \(from) (\(source.backend.rawValue)) to \(to) (\(backend.rawValue)), verified.")
        }
    }

    /// Writes every object of `source` into the new store `storage` as a one-step migration of
    /// the empty store to its own schema: records exactly as given (keys, relationships), a
    /// batch at a time, made the store's data in one atomic step with the source's metadata.
    /// Returns what was written per entity.
    private func write(_ source: OpenedStore, schema: StoreSchema, to storage: (any MigratableStorage)?, backend: StoreBackend) throws -> [String: EntityContent] {
        guard let storage else { throw StoreToolError("a \(backend.rawValue) store cannot be written by copy") }
        do {
            guard try storage.open(schema: schema) == nil else {
                storage.close()
                throw StoreToolError("the temporary copy was not a new store")
            }
            storage.close()
            let migration = try storage.beginMigration(from: schema, to: schema)
            do {
                var contents: [String: EntityContent] = [:]
                var highestKey: Int64 = 0
                try source.read { reader in
                    let progress = ProgressReporter("copy", total: try EntityPages.total(schema, reader), quiet: quiet)
                    var done = 0
                    for entity in schema.entities where !entity.isAbstract {
                        contents[entity.name] = try EntityPages.read(entity, from: reader, pageSize: batchSize) { page in
                            highestKey = max(highestKey, page.last?.id.key ?? 0)
                            try migration.writeDestination(MergedChanges(inserts: page))
                            done += page.count
                            progress.update(done)
                        }
                    }
                    progress.finish()
                }
                try migration.finish(metadata: source.metadata, counters: CommitCounters(nextKey: highestKey + 1, sequence: 1))
                return contents
            } catch {
                migration.abandon()
                throw error
            }
        } catch let error as StoreToolError {
            throw error
        } catch {
            throw StoreToolError("writing the copy failed: \(error); \(to) was left as it was")
        }
    }

    /// What each concrete entity of `store` holds, read in one snapshot.
    private static func contents(of store: OpenedStore, schema: StoreSchema) throws -> [String: EntityContent] {
        try store.read { reader in
            var contents: [String: EntityContent] = [:]
            for entity in schema.entities where !entity.isAbstract {
                contents[entity.name] = try EntityPages.read(entity, from: reader, pageSize: 1_000)
            }
            return contents
        }
    }
}
