import CoreStore
import CoreStoreStorage
import Foundation
import Testing

/// `corestore inspect` and `corestore dump`, run as a user runs them, on stores each durable
/// backend wrote through a `DataStack`, and on paths that are not stores.
@Suite("corestore inspect and dump", .serialized)
struct StoreToolTests {
    private static func workspace() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("corestore-tool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A store of `backend` written by ``StoreToolModel/writeStore(_:at:)``, in a new directory.
    private static func writtenStore(_ backend: String) throws -> (directory: URL, path: String) {
        let directory = try workspace()
        let url = directory.appendingPathComponent("store.\(backend)")
        try StoreToolModel.writeStore(backend, at: url)
        return (directory, url.path)
    }

    /// The files whose bytes must not change when a tool reads the store (LevelDB rewrites its
    /// bookkeeping files on every open, so there its table and log contents are compared by dump).
    private static func dataFiles(_ backend: String, _ path: String) throws -> [String: Data] {
        switch backend {
        case "sqlite": [path: try Data(contentsOf: URL(fileURLWithPath: path))]
        case "lmdb": ["data.mdb": try Data(contentsOf: URL(fileURLWithPath: path).appendingPathComponent("data.mdb"))]
        default: [:]
        }
    }

    private static func jsonObject(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("inspect prints the model, every entity with its properties and counts, and changes nothing", arguments: StoreToolModel.backends)
    func inspectText(backend: String) throws {
        let (directory, path) = try Self.writtenStore(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Self.dataFiles(backend, path)
        let result = try CorestoreExecutable.runSeparated(["inspect", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let text = result.stdout
        #expect(text.contains("Backend:       \(backend)\n"))
        #expect(text.contains("Model version: ToolV1\n"))
        #expect(text.contains("Entity Shelf — 2 objects\n"))
        #expect(text.contains("Entity Book — 2 objects, 3 with sub-entities\n"))
        #expect(text.contains("Entity EBook : Book — 1 object\n"))
        #expect(text.contains("\n  books  → Book (to-many, ordered, inverse shelf, nullify on delete)\n"))
        #expect(text.contains("\n  shelf      → Shelf (to-one, inverse books, nullify on delete)\n"))
        #expect(text.contains("\n  title      string, default \"\"\n"))
        #expect(text.contains("  cover      bytes?\n"))
        #expect(text.contains("  unique (isbn)\n"))
        #expect(text.contains("  index (title)\n"))
        #expect(text.contains("Version lock:\n"))
        #expect(try Self.dataFiles(backend, path) == before)
    }

    @Test("inspect --json holds the same facts for scripts", arguments: StoreToolModel.backends)
    func inspectJSON(backend: String) throws {
        let (directory, path) = try Self.writtenStore(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try CorestoreExecutable.runSeparated(["inspect", path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try Self.jsonObject(result.stdout)
        #expect(report["backend"] as? String == backend)
        #expect(report["modelVersion"] as? String == "ToolV1")
        #expect(report["schemaRecorded"] as? Bool == true)
        #expect((report["sizeBytes"] as? Int ?? 0) > 0)
        let entities = try #require(report["entities"] as? [[String: Any]])
        #expect(entities.map { $0["name"] as? String } == ["Shelf", "Book", "EBook"])
        #expect(entities.map { $0["objects"] as? Int } == [2, 2, 1])
        let book = entities[1]
        #expect(book["uniqueConstraints"] as? [[String]] == [["isbn"]])
        let attributes = try #require(book["attributes"] as? [[String: Any]])
        #expect(attributes.map { $0["name"] as? String } == ["isbn", "title", "price", "weight", "pages", "inPrint", "cover", "published", "uid", "link"])
        #expect(attributes.map { $0["type"] as? String } == ["string", "string", "double", "decimal", "integer", "bool", "bytes", "date", "uuid", "url"])
    }

    @Test("dump writes every object with its values and relationships as keys, in each format", arguments: StoreToolModel.backends)
    func dumpFormats(backend: String) throws {
        let (directory, path) = try Self.writtenStore(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Self.dataFiles(backend, path)

        let lines = try CorestoreExecutable.runSeparated(["dump", path, "--page-size", "1"])
        #expect(lines.status == 0, "\(lines.stderr)")
        let objects = try lines.stdout.split(separator: "\n").map { try Self.jsonObject(String($0)) }
        #expect(objects.map { $0["_entity"] as? String } == ["Shelf", "Shelf", "Book", "Book", "EBook"])
        let shelf = objects[0]
        #expect(shelf["name"] as? String == "Fiction, \"classics\"")
        let first = try #require(objects.first { $0["isbn"] as? String == "111" })
        let second = try #require(objects.first { $0["isbn"] as? String == "222" })
        let ebook = objects[4]
        #expect(shelf["books"] as? [Int] == [second["_key"] as? Int, first["_key"] as? Int, ebook["_key"] as? Int].compactMap { $0 })
        #expect(first["shelf"] as? Int == shelf["_key"] as? Int)
        #expect(objects[1]["books"] as? [Int] == [])
        #expect(first["title"] as? String == "Line\nbreak, comma")
        #expect(first["price"] as? Double == 12.5)
        #expect(first["weight"] as? String == "0.1")
        #expect(first["pages"] as? Int == 320)
        #expect(first["inPrint"] as? Bool == true)
        #expect(first["cover"] as? String == Data([0, 1, 2, 255]).base64EncodedString())
        #expect(first["published"] as? String == "2023-11-14T22:13:20.25Z")
        #expect(first["uid"] as? String == "12345678-1234-1234-1234-123456789ABC")
        #expect(first["link"] as? String == "https://example.com/b?x=1")
        #expect(second["title"] as? String == "Ünïcode ✓")
        #expect(second["cover"] is NSNull)
        #expect(second["inPrint"] as? Bool == false)
        #expect(ebook["megabytes"] as? Double == 1.75)

        let array = try CorestoreExecutable.runSeparated(["dump", path, "--format", "json", "--entity", "Book"])
        #expect(array.status == 0, "\(array.stderr)")
        let books = try #require(try JSONSerialization.jsonObject(with: Data(array.stdout.utf8)) as? [[String: Any]])
        #expect(books.map { $0["isbn"] as? String } == ["111", "222", "333"])

        let csv = try CorestoreExecutable.runSeparated(["dump", path, "--format", "csv", "--entity", "Book"])
        #expect(csv.status == 0, "\(csv.stderr)")
        #expect(csv.stdout.hasPrefix("_key,isbn,title,price,weight,pages,inPrint,cover,published,uid,link,shelf\n"))
        #expect(csv.stdout.contains(",111,\"Line\nbreak, comma\",12.5,0.1,320,true,AAEC/w==,2023-11-14T22:13:20.25Z,12345678-1234-1234-1234-123456789ABC,https://example.com/b?x=1,"))
        #expect(!csv.stdout.contains("Electric"))

        #expect(try Self.dataFiles(backend, path) == before)
        let again = try CorestoreExecutable.runSeparated(["dump", path])
        #expect(again.stdout == lines.stdout)
    }

    @Test("Paths that are not stores, and bad options, fail with one clear line on standard error")
    func badInputs() throws {
        let directory = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = directory.appendingPathComponent("notes.txt")
        try Data("hello".utf8).write(to: text)
        let empty = directory.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let damaged = directory.appendingPathComponent("damaged.sqlite")
        try Data(Array("SQLite format 3\0".utf8) + [UInt8](repeating: 0xA5, count: 8_192)).write(to: damaged)
        let cases: [([String], String)] = [
            (["inspect", directory.appendingPathComponent("missing.sqlite").path], "no such file or directory"),
            (["dump", text.path], "is not a store"),
            (["inspect", empty.path], "is a directory, but not an LMDB store"),
            (["inspect", damaged.path], "cannot open \(damaged.path) as a sqlite store"),
            (["dump", damaged.path, "--format", "csv"], "--format csv needs --entity"),
        ]
        for (arguments, message) in cases {
            let result = try CorestoreExecutable.runSeparated(arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }

    @Test("dump of an entity the store lacks names the entities it has", arguments: StoreToolModel.backends)
    func unknownEntity(backend: String) throws {
        let (directory, path) = try Self.writtenStore(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try CorestoreExecutable.runSeparated(["dump", path, "--entity", "Magazine"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("has no entity 'Magazine'; it has Shelf, Book, EBook"))
    }

    @Test("A store whose schema was never recorded is inspected from its metadata; dump says how to record it", arguments: StoreToolModel.backends)
    func storeWithoutRecordedSchema(backend: String) throws {
        let (directory, path) = try Self.writtenStore(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Take the recorded schema out, as in a store written before schemas were recorded.
        do {
            let storage = StoreToolModel.store(backend, at: URL(fileURLWithPath: path))
            let probe = StoreSchema(modelVersion: "", schemaHash: "probe", entities: [])
            var metadata = try #require(try storage.open(schema: probe))
            storage.close()
            let schema = try #require(try metadata.recordedSchema(store: path))
            _ = try storage.open(schema: schema)
            metadata.userInfo[StoredMetadata.schemaKey] = nil
            _ = try storage.write(ChangeSet(metadata: metadata))
            storage.close()
        }
        let inspect = try CorestoreExecutable.runSeparated(["inspect", path])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        #expect(inspect.stdout.contains("Schema:        not recorded"))
        #expect(!inspect.stdout.contains("Entity "))
        let dump = try CorestoreExecutable.runSeparated(["dump", path])
        #expect(dump.status != 0)
        #expect(dump.stderr.contains("has no recorded schema (model version 'ToolV1')"))

        // Adding it to a DataStack records it again.
        do {
            let stack = DataStack(StoreToolModel.schema)
            try stack.addStorageAndWait(StoreToolModel.store(backend, at: URL(fileURLWithPath: path)))
        }
        let after = try CorestoreExecutable.runSeparated(["dump", path])
        #expect(after.status == 0, "\(after.stderr)")
        #expect(after.stdout.split(separator: "\n").count == 5)
    }
}
