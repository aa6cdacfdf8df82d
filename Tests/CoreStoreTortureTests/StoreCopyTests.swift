import CoreStore
import CoreStoreStorage
import Foundation
import Testing

/// `corestore copy`, run as a user runs it: a round trip through every backend keeps every
/// object, an existing target needs --force, and a killed copy leaves the target untouched.
@Suite("corestore copy", .serialized)
struct StoreCopyTests {
    private static func workspace() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("corestore-copy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private static func dump(_ path: String) throws -> String {
        let result = try CorestoreExecutable.runSeparated(["dump", path])
        try #require(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    @Test("sqlite → lmdb → leveldb → sqlite keeps every object, key and relationship, and the copy is a working store", arguments: StoreToolModel.backends)
    func roundTrip(first: String) throws {
        let directory = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("source.\(first)")
        try StoreToolModel.writeStore(first, at: source)
        let expected = try Self.dump(source.path)
        #expect(expected.split(separator: "\n").count == 5)
        let order = StoreToolModel.backends
        let start = order.firstIndex(of: first) ?? 0
        var previous = source
        for step in 1...3 {
            let backend = order[(start + step) % order.count]
            let next = directory.appendingPathComponent("copy\(step).\(backend)")
            let result = try CorestoreExecutable.runSeparated(["copy", previous.path, next.path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("Copied 5 objects of 3 entities"))
            #expect(try Self.dump(next.path) == expected, "copy \(step) to \(backend)")
            let check = try CorestoreExecutable.runSeparated(["check", next.path, "--quiet"])
            #expect(check.status == 0, "\(check.stdout)")
            previous = next
        }
        // No temporary store is left beside the copies.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") } == [])
        // The last copy opens in a DataStack, at the same model version, and takes new objects
        // with keys above every copied one.
        do {
            let stack = DataStack(StoreToolModel.schema)
            try stack.addStorageAndWait(StoreToolModel.store(order[start], at: previous))
            try stack.perform(synchronous: { t in
                let book = t.create(Into<ToolBook>())
                book.isbn = "444"
                book.shelf = try t.fetchOne(From<ToolShelf>().where(\.$name == "Empty"))
            })
            #expect(try stack.fetchOne(From<ToolShelf>().where(\.$name == "Empty"))?.books.map(\.isbn) == ["444"])
            #expect(try stack.fetchCount(From<ToolBook>()) == 4)
        }
        let objects = try Self.dump(previous.path).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let keys = objects.compactMap { $0["_key"] as? Int }
        let added = try #require(objects.first { $0["isbn"] as? String == "444" }?["_key"] as? Int)
        #expect(keys.count == 6 && keys.filter { $0 >= added } == [added])
    }

    @Test("An existing target is refused without --force and replaced with it, on every backend", arguments: StoreToolModel.backends)
    func existingTarget(backend: String) throws {
        let directory = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("source.sqlite")
        try StoreToolModel.writeStore("sqlite", at: source)
        let target = directory.appendingPathComponent("target.\(backend)")
        // A different store in the way: the same model, one shelf fewer.
        try StoreToolModel.writeStore(backend, at: target)
        do {
            let stack = DataStack(StoreToolModel.schema)
            try stack.addStorageAndWait(StoreToolModel.store(backend, at: target))
            try stack.perform(synchronous: { t in try t.delete(t.fetchAll(From<ToolShelf>().where(\.$name == "Empty"))) })
        }
        let before = try Self.dump(target.path)
        let refused = try CorestoreExecutable.runSeparated(["copy", source.path, target.path])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("exists; add --force to replace it"))
        #expect(try Self.dump(target.path) == before)
        let forced = try CorestoreExecutable.runSeparated(["copy", source.path, target.path, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try Self.dump(target.path) == (try Self.dump(source.path)))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") } == [])
    }

    @Test("A copy killed while it writes leaves no target, and the next copy cleans up after it", arguments: ["lmdb", "leveldb", "sqlite"])
    func killedCopy(backend: String) throws {
        let directory = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("big.lmdb")
        do {
            let stack = DataStack(StoreToolModel.schema)
            try stack.addStorageAndWait(StoreToolModel.store("lmdb", at: source))
            try stack.perform(synchronous: { t in
                for i in 0..<10_000 {
                    let book = t.create(Into<ToolBook>())
                    book.isbn = "isbn-\(i)"
                    book.title = "Title \(i % 97)"
                }
            })
        }
        let target = directory.appendingPathComponent("copy.\(backend)")
        let executable = try #require(CorestoreExecutable.url)
        let process = Process()
        process.executableURL = executable
        process.arguments = ["copy", source.path, target.path, "--batch-size", "20"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Kill it as soon as its temporary store exists: the copy has started and cannot be done.
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, process.isRunning {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            if names.contains(where: { $0.hasPrefix(".copy.\(backend).corestore-copy-") }) { break }
            usleep(1_000)
        }
        #expect(process.isRunning, "the copy ended before it could be killed")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(!FileManager.default.fileExists(atPath: target.path))
        let again = try CorestoreExecutable.runSeparated(["copy", source.path, target.path])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("Copied 10,000 objects"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") } == [])
    }

    @Test("An unordered to-many stored out of key order copies to SQLite (which keeps key order) and dumps the same", arguments: ["lmdb", "leveldb"])
    func unorderedToMany(backend: String) throws {
        let directory = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("pets.\(backend)")
        try StoreToolModel.writePetsStore(backend, at: source)
        let target = directory.appendingPathComponent("pets.sqlite")
        let result = try CorestoreExecutable.runSeparated(["copy", source.path, target.path])
        #expect(result.status == 0, "\(result.stderr)")
        let dumped = try Self.dump(source.path)
        #expect(dumped.contains("\"pets\":[2,3,4,5,6]"), "\(dumped)")
        #expect(try Self.dump(target.path) == dumped)
    }

    @Test("Bad targets fail with one clear line and write nothing")
    func badTargets() throws {
        let directory = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("source.sqlite")
        try StoreToolModel.writeStore("sqlite", at: source)
        let cases: [([String], String)] = [
            (["copy", source.path, directory.appendingPathComponent("copy.bin").path], "cannot tell the backend of"),
            (["copy", source.path, source.path, "--force"], "is the store being copied"),
            (["copy", source.path, directory.appendingPathComponent("missing/copy.lmdb").path], "does not exist"),
            (["copy", directory.appendingPathComponent("nothing.sqlite").path, directory.appendingPathComponent("copy.lmdb").path], "no such file or directory"),
        ]
        for (arguments, message) in cases {
            let result = try CorestoreExecutable.runSeparated(arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        // Reading the source leaves only what any SQLite reader of a WAL database creates,
        // beside the store and the counters file it was written with.
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
        #expect(left.sorted() == ["source.sqlite", "source.sqlite-counters"])
    }
}
