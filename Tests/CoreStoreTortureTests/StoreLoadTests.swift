import Foundation
import Testing

/// `corestore load`, run as a user runs it: objects go in through one commit, matched by the
/// unique constraint, with their relationships' inverses kept; a bad object loads nothing.
@Suite("corestore load", .serialized)
struct StoreLoadTests {
    private static func writtenStore(_ backend: String) throws -> (directory: URL, path: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("corestore-load-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("store.\(backend)")
        try StoreToolModel.writeStore(backend, at: url)
        return (directory, url.path)
    }

    private static func objects(_ path: String, entity: String? = nil) throws -> [[String: Any]] {
        let result = try CorestoreExecutable.runSeparated(["dump", path] + (entity.map { ["--entity", $0] } ?? []))
        try #require(result.status == 0, "\(result.stderr)")
        return try result.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test("Objects are inserted or, by the unique constraint, update the stored ones, with inverses kept", arguments: StoreToolModel.backends)
    func insertsAndUpdates(backend: String) throws {
        let (directory, path) = try Self.writtenStore(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let shelves = try Self.objects(path, entity: "Shelf")
        let emptyShelf = try #require(shelves.first { $0["name"] as? String == "Empty" }?["_key"] as? Int)
        let file = directory.appendingPathComponent("books.jsonl")
        try Data("""
            {"isbn":"111","price":99.5}
            {"_key":1234,"isbn":"555","title":"New one","published":"2020-01-02T03:04:05.5Z","shelf":\(emptyShelf),"weight":"2.25"}

            {"isbn":"555","pages":12}
            {"_entity":"EBook","isbn":"666","megabytes":3,"cover":"AAEC","uid":"12345678-1234-1234-1234-123456789ABC"}
            """.utf8).write(to: file)
        let result = try CorestoreExecutable.runSeparated(["load", path, "--entity", "Book", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "Loaded 4 objects into Book: 2 inserted, 1 updated.\n")

        let books = try Self.objects(path, entity: "Book")
        #expect(books.count == 5)
        let updated = try #require(books.first { $0["isbn"] as? String == "111" })
        #expect(updated["price"] as? Double == 99.5)
        #expect(updated["title"] as? String == "Line\nbreak, comma", "fields the object leaves out stay as they were")
        let added = try #require(books.first { $0["isbn"] as? String == "555" })
        #expect(added["title"] as? String == "New one" && added["pages"] as? Int == 12 && added["weight"] as? String == "2.25")
        #expect(added["published"] as? String == "2020-01-02T03:04:05.5Z")
        #expect(added["inPrint"] as? Bool == true, "left out: the default value")
        #expect(added["_key"] as? Int != 1234)
        let ebook = try #require(books.first { $0["isbn"] as? String == "666" })
        #expect(ebook["_entity"] as? String == "EBook" && ebook["megabytes"] as? Double == 3 && ebook["cover"] as? String == "AAEC")
        // The inverse of the new book's shelf.
        let shelf = try #require(try Self.objects(path, entity: "Shelf").first { $0["_key"] as? Int == emptyShelf })
        #expect(shelf["books"] as? [Int] == [added["_key"] as? Int].compactMap { $0 })
        let check = try CorestoreExecutable.runSeparated(["check", path, "--quiet"])
        #expect(check.status == 0, "\(check.stdout)")
    }

    @Test("A bad object, anywhere in the file, loads nothing and names its line", arguments: [
        ("{\"isbn\":\"777\",\"pages\":\"many\"}", "line 2: 'pages' must be an integer, not \"many\""),
        ("{\"isbn\":\"777\",\"shelf\":424242}", "line 2: 'shelf' points to Shelf#424242, which is not in the store"),
        ("{\"isbn\":\"777\",\"colour\":\"red\"}", "line 2: 'colour' is not an attribute or relationship of Book"),
        ("{\"isbn\":\"777\",\"title\":null}", "line 2: 'title' must be a value (it is not optional)"),
        ("{\"_entity\":\"Shelf\",\"name\":\"x\"}", "line 2: 'Shelf' is not Book or one of its sub-entities"),
        ("not json", "line 2: not a JSON object"),
        ("{\"isbn\":\"777\",\"published\":\"\"}", "line 2: 'published' must be an ISO 8601 date"),
        ("{\"_entity\":\"EBook\",\"isbn\":\"888\"}", "line 2: its unique values are those of an earlier Book in the file, which is not a EBook"),
    ])
    func badObject(line: String, message: String) throws {
        let (directory, path) = try Self.writtenStore("lmdb")
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Self.objects(path).count
        let file = directory.appendingPathComponent("books.jsonl")
        try Data("{\"isbn\":\"888\",\"title\":\"Fine\"}\n\(line)\n".utf8).write(to: file)
        let result = try CorestoreExecutable.runSeparated(["load", path, "--entity", "Book", file.path])
        #expect(result.status != 0)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.contains("nothing was loaded"))
        #expect(try Self.objects(path).count == before)
    }

    @Test("A JSON array loads as well, and an unknown entity is refused")
    func jsonArrayAndUnknownEntity() throws {
        let (directory, path) = try Self.writtenStore("sqlite")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("shelves.json")
        try Data("[{\"name\":\"A\"},{\"name\":\"B\"}]".utf8).write(to: file)
        let loaded = try CorestoreExecutable.runSeparated(["load", path, "--entity", "Shelf", file.path])
        #expect(loaded.status == 0, "\(loaded.stderr)")
        #expect(try Self.objects(path, entity: "Shelf").compactMap { $0["name"] as? String }.suffix(2) == ["A", "B"])
        let unknown = try CorestoreExecutable.runSeparated(["load", path, "--entity", "Magazine", file.path])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("has no entity 'Magazine'"))
    }
}
