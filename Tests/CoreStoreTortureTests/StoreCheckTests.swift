import CoreStore
import CoreStoreKeyValue
import CoreStoreLevelDB
import CoreStoreLMDB
import CoreStoreStorage
import CSQLite
import Foundation
import Testing

/// `corestore check`, run as a user runs it: intact stores pass, stores damaged behind the
/// framework's back fail with the problem named, and stores that cannot be opened say so.
@Suite("corestore check", .serialized)
struct StoreCheckTests {
    private static func writtenStore(_ backend: String) throws -> (directory: URL, url: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("corestore-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("store.\(backend)")
        try StoreToolModel.writeStore(backend, at: url)
        return (directory, url)
    }

    /// Opens `storage` with the schema recorded in it.
    private static func openWithRecordedSchema(_ storage: any StorageInterface, path: String) throws -> StoreSchema {
        let metadata = try #require(try storage.open(schema: StoreSchema(modelVersion: "", schemaHash: "probe", entities: [])))
        storage.close()
        let schema = try #require(try metadata.recordedSchema(store: path))
        _ = try storage.open(schema: schema)
        return schema
    }

    /// Deletes the record of the book with `isbn` straight from the engine, leaving its index
    /// entries and the shelf's relationship to it behind.
    private static func deleteBookBehindTheStoresBack<W: KeyValueStorageWrapper>(_ storage: W, isbn: String, path: String) throws -> Int64 {
        let schema = try openWithRecordedSchema(storage, path: path)
        defer { storage.close() }
        let books = try storage.read { try $0.records(of: "Book", after: .min, limit: 100) }
        let isbnOrdinal = try #require(schema.attributeOrdinal("isbn", in: "Book"))
        let book = try #require(books.first { $0.attributes[isbnOrdinal] == .string(isbn) })
        let key = KeyValueLayout(schema: schema).recordKey(entity: "Book", key: book.id.key)
        try storage.keyValueStorage.engine.write { try $0.delete(key) }
        return book.id.key
    }

    /// Runs `sql` on the SQLite file at `path` with the C API, as another program would.
    private static func execute(_ sql: String, onSQLiteFile path: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK else { throw CocoaError(.fileReadUnknown) }
        defer { sqlite3_close(db) }
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(db, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        try #require(status == SQLITE_OK, "\(sql): \(message.map { String(cString: $0) } ?? "")")
    }

    @Test("An intact store passes, with its objects counted", arguments: StoreToolModel.backends)
    func intactStorePasses(backend: String) throws {
        let (directory, url) = try Self.writtenStore(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try CorestoreExecutable.runSeparated(["check", url.path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("Shelf: 2 objects\nBook: 2 objects\nEBook: 1 object\n"))
        #expect(result.stdout.contains("OK: \(url.path): 5 objects, 6 relationship destinations"))
        #expect(result.stdout.contains("; 0 problems\n"))
        #expect(!result.stdout.contains("problem:"))
    }

    @Test("A record deleted behind the store's back is found through its index entries and the relationship to it", arguments: ["lmdb", "leveldb"])
    func recordDeletedFromTheEngine(backend: String) throws {
        let (directory, url) = try Self.writtenStore(backend)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key: Int64 = backend == "lmdb"
            ? try Self.deleteBookBehindTheStoresBack(LMDBStore(fileURL: url), isbn: "111", path: url.path)
            : try Self.deleteBookBehindTheStoresBack(LevelDBStore(fileURL: url), isbn: "111", path: url.path)
        let result = try CorestoreExecutable.runSeparated(["check", url.path])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains(".books: points to Book#\(key), which does not exist\n"))
        #expect(result.stdout.contains("|u|isbn: has an entry for Book#\(key), which does not exist\n"))
        #expect(result.stdout.contains("FAILED: \(url.path): 4 objects"))
    }

    @Test("A SQLite row changed behind the store's back to point to a missing object is found")
    func sqliteRowPointingNowhere() throws {
        let (directory, url) = try Self.writtenStore("sqlite")
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.execute("UPDATE \"Book\" SET \"shelf\" = 999 WHERE \"isbn\" = '111'", onSQLiteFile: url.path)
        let result = try CorestoreExecutable.runSeparated(["check", url.path, "--quiet"])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains(".shelf: points to Shelf#999, which does not exist\n"))
        #expect(!result.stdout.contains("Shelf: 2 objects"))
        #expect(result.stdout.contains("FAILED: \(url.path): 5 objects"))
    }

    @Test("A store that cannot be opened exits with 2 and one line on standard error")
    func unopenableStore() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("corestore-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let damaged = directory.appendingPathComponent("damaged.sqlite")
        try Data(Array("SQLite format 3\0".utf8) + [UInt8](repeating: 0x5A, count: 4_096)).write(to: damaged)
        for path in [damaged.path, directory.appendingPathComponent("missing").path] {
            let result = try CorestoreExecutable.runSeparated(["check", path])
            #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.hasPrefix("Error: ") && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        }
    }
}
