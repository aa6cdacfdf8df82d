import CoreStore
import CoreStoreStorage
import Foundation
import Testing

/// The tools that change a store refuse one another process has open, naming the process; the
/// read-only ones read beside it, except on LevelDB, which one process opens at a time.
@Suite("corestore tools on a store another process has open", .serialized)
struct StoreInUseTests {
    @Test("load, migrate and copy --force refuse a store open in another process; once it is closed they run", arguments: StoreToolModel.backends)
    func changesAreRefusedWhileOpen(backend: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("corestore-in-use-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("store.\(backend)")
        try StoreToolModel.writeStore(backend, at: url)
        let books = directory.appendingPathComponent("books.jsonl")
        try Data(#"{"isbn":"999","title":"Late"}"#.utf8).write(to: books)
        let other = directory.appendingPathComponent("other.sqlite")
        try StoreToolModel.writeStore("sqlite", at: other)
        let pid = ProcessInfo.processInfo.processIdentifier

        do {
            // This test process is the app that has the store open.
            let stack = DataStack(StoreToolModel.schema)
            try stack.addStorageAndWait(StoreToolModel.store(backend, at: url))
            #expect(try stack.fetchCount(From<ToolBook>()) == 3)

            var refused: [[String]] = [["copy", other.path, url.path, "--force", "--to-backend", backend]]
            if backend != "sqlite" { refused.append(["load", url.path, "--entity", "Book", books.path]) }
            for arguments in refused {
                let result = try CorestoreExecutable.runSeparated(arguments)
                #expect(result.status != 0, "\(arguments[0]) ran on a store open elsewhere")
                #expect(result.stderr.contains("is open in process \(pid)"), "\(arguments[0]): \(result.stderr)")
            }
            let migrate = try CorestoreExecutable.runSeparated(["migrate", url.path, "--schema", try Self.renamedSchema(in: directory).path])
            #expect(migrate.status != 0 && migrate.stderr.contains("is open in process \(pid)"), "migrate: \(migrate.stderr)")

            let dump = try CorestoreExecutable.runSeparated(["dump", url.path, "--entity", "Book"])
            if backend == "leveldb" {
                #expect(dump.status != 0 && dump.stderr.contains("is open in process \(pid)") && dump.stderr.contains("one process at a time"), "\(dump.stderr)")
            } else {
                #expect(dump.status == 0, "reading beside the app: \(dump.stderr)")
                #expect(dump.stdout.split(separator: "\n").count == 3)
            }
            #expect(try stack.fetchCount(From<ToolBook>()) == 3, "the refused tools changed nothing")
            withExtendedLifetime(stack) {}
        }

        if backend == "sqlite" {
            // Already loaded beside the app (`loadingBesideTheAppReachesItsMonitors`).
            return
        }
        let load = try CorestoreExecutable.runSeparated(["load", url.path, "--entity", "Book", books.path])
        #expect(load.status == 0, "load once the app closed the store: \(load.stderr)")
        let dump = try CorestoreExecutable.runSeparated(["dump", url.path, "--entity", "Book"])
        #expect(dump.stdout.split(separator: "\n").count == 4)
    }

    @Test("load writes into a SQLite store beside the app, whose objects and monitors hear of it")
    func loadingBesideTheAppReachesItsMonitors() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("corestore-beside-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("store.sqlite")
        try StoreToolModel.writeStore("sqlite", at: url)
        let books = directory.appendingPathComponent("books.jsonl")
        try Data((#"{"isbn":"999","title":"Late"}"# + "\n" + #"{"isbn":"222","title":"Renamed"}"#).utf8).write(to: books)

        // This test process is the app; the tool is another process.
        let stack = DataStack(StoreToolModel.schema)
        try stack.addStorageAndWait(StoreToolModel.store("sqlite", at: url))
        let second = try #require(try stack.fetchOne(From<ToolBook>().where(\.$isbn == "222")))
        let monitor = try stack.monitorList(From<ToolBook>().orderBy(.ascending(\.$isbn)), deliveryQueue: DispatchQueue(label: "in-use.delivery"))
        #expect(monitor.numberOfObjects() == 3)

        let load = try CorestoreExecutable.runSeparated(["load", url.path, "--entity", "Book", books.path])
        #expect(load.status == 0, "load beside the app: \(load.stderr)")
        // The stack checks the file on its own (every 200 ms): wait for it, up to a minute.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, monitor.numberOfObjects() != 4 || second.title != "Renamed" {
            Thread.sleep(forTimeInterval: 0.02)
        }
        #expect(monitor.objectsInAllSections().map(\.isbn) == ["111", "222", "333", "999"])
        #expect(second.title == "Renamed")
    }

    /// The store's recorded schema under another model version, with an extra optional
    /// attribute on Shelf: a step the tool can infer.
    private static func renamedSchema(in directory: URL) throws -> URL {
        let v1 = try JSONDecoder().decode(StoreSchema.self, from: Data(try StoreToolModel.schema.storeSchemaJSON().utf8))
        let entities = v1.entities.map { entity -> EntityDescription in
            guard entity.name == "Shelf" else { return entity }
            var changed = entity
            changed.attributes.append(AttributeDescription(name: "note", type: .string, isOptional: true))
            return changed
        }
        let file = directory.appendingPathComponent("v2.json")
        try Data(StoredMetadata.schemaJSON(StoreSchema(modelVersion: "InUseV2", schemaHash: "in-use-v2", entities: entities)).utf8).write(to: file)
        return file
    }
}
