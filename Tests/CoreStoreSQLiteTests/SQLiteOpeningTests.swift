import Foundation
import Testing
import CSQLite
import CoreStore
import CoreStoreSQLite

@Suite("SQLiteStore opening")
struct SQLiteOpeningTests {
    /// Adding the store fails with `incompatibleStore`, and the file is byte-for-byte unchanged.
    func expectRejected(_ url: URL, reason: String) throws {
        let before = try Data(contentsOf: url)
        let stack = DataStack(sqliteTestSchema)
        #expect {
            try stack.addStorageAndWait(SQLiteStore(fileURL: url))
        } throws: { error in
            guard case CoreStoreError.storageFailure(.incompatibleStore(_, let message)) = error else { return false }
            return message.contains(reason)
        }
        #expect(try Data(contentsOf: url) == before)
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
    }

    @Test func aFileThatIsNotADatabaseIsLeftAlone() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        try Data("This is a text file, not a database.\n".utf8).write(to: url)
        try expectRejected(url, reason: "not a SQLite database")
        var random = Data(count: 8192)
        random.withUnsafeMutableBytes { for i in 0..<$0.count { $0[i] = UInt8(truncatingIfNeeded: i &* 131 &+ 7) } }
        try random.write(to: url)
        try expectRejected(url, reason: "not a SQLite database")
    }

    @Test func aTruncatedDatabaseIsLeftAlone() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        do {
            let stack = try makeSQLiteStack(url)
            try stack.perform(synchronous: { transaction in
                for i in 0..<500 { transaction.create(Into<Sample>()).title = String(repeating: "x", count: 100) + "\(i)" }
            })
        }
        let whole = try Data(contentsOf: url)
        #expect(whole.count > 16384)
        try whole.prefix(whole.count / 2).write(to: url)
        try expectRejected(url, reason: "truncated")
    }

    @Test func aForeignSQLiteDatabaseIsLeftAlone() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        var db: OpaquePointer?
        #expect(sqlite3_open(url.path, &db) == SQLITE_OK)
        #expect(sqlite3_exec(db, "CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('x');", nil, nil, nil) == SQLITE_OK)
        sqlite3_close(db)
        try expectRejected(url, reason: "CoreStore did not create")
    }

    @Test func anotherModelIsReportedAndLeftAlone() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        do {
            let stack = try makeSQLiteStack(url)
            try stack.perform(synchronous: { $0.create(Into<Account>()).email = "kept@x" })
        }
        let before = try Data(contentsOf: url)
        let other = CoreStoreSchema(modelVersion: "S2", entities: [Entity<Account>("Account")])
        #expect {
            _ = try makeSQLiteStack(url, schema: other)
        } throws: { error in
            guard case CoreStoreError.schemaMismatch(_, let storedVersion, _, let expectedVersion, _) = error else { return false }
            return storedVersion == "S1" && expectedVersion == "S2"
        }
        #expect(try Data(contentsOf: url) == before)
        let original = try makeSQLiteStack(url)
        #expect(try original.fetchOne(From<Account>())?.email == "kept@x")
    }

    @Test func recreateOnModelMismatchStartsAfresh() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        do {
            let stack = try makeSQLiteStack(url)
            try stack.perform(synchronous: { $0.create(Into<Account>()).email = "old@x" })
        }
        let other = CoreStoreSchema(modelVersion: "S2", entities: [Entity<Account>("Account")])
        let stack = try makeSQLiteStack(url, schema: other, options: .recreateStoreOnModelMismatch)
        #expect(try stack.fetchCount(From<Account>()) == 0)
        try stack.perform(synchronous: { $0.create(Into<Account>()).email = "new@x" })
        #expect(try stack.fetchOne(From<Account>())?.email == "new@x")
    }

    @Test func oneStoreInstanceIsAddedOnceButItsFileMayBeShared() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        let store = SQLiteStore(fileURL: url)
        let first = DataStack(sqliteTestSchema)
        try first.addStorageAndWait(store)
        try first.perform(synchronous: { $0.create(Into<Account>()).email = "a@x" })
        let second = DataStack(sqliteTestSchema)
        #expect {
            try second.addStorageAndWait(store)
        } throws: { error in
            guard case CoreStoreError.storageAlreadyAdded = error else { return false }
            return true
        }
        // Another instance for the same file (here spelled another way) shares it.
        let sameFile = URL(fileURLWithPath: directory.url.path + "/./store.sqlite")
        try second.addStorageAndWait(SQLiteStore(fileURL: sameFile))
        #expect(try second.fetchCount(From<Account>()) == 1)
        withExtendedLifetime(first) {}
    }

    @Test func missingDirectoriesAreCreated() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("a/b/c/store.sqlite")
        let stack = try makeSQLiteStack(url)
        try stack.perform(synchronous: { $0.create(Into<Account>()).email = "deep@x" })
        #expect(FileManager.default.fileExists(atPath: url.path))
    }

    @Test func defaultLocationFollowsXDG() throws {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share").path
        let name = ProcessInfo.processInfo.processName
        #expect(SQLiteStore.defaultDirectory.path == URL(fileURLWithPath: base).appendingPathComponent(name).path)
        #expect(SQLiteStore.defaultFileURL.lastPathComponent == "\(name).sqlite")
        #expect(SQLiteStore(fileName: "x.sqlite").fileURL.deletingLastPathComponent().path == SQLiteStore.defaultDirectory.path)
    }

    @Test func addStorageWithoutArgumentsUsesTheDefaultFile() throws {
        let store = SQLiteStore()
        try store.erase()
        defer { try? SQLiteStore().erase() }
        let stack = DataStack(CoreStoreSchema(modelVersion: "Default", entities: [Entity<Account>("Account")]))
        let added = try stack.addStorageAndWait()
        #expect(added.fileURL == SQLiteStore.defaultFileURL)
        try stack.perform(synchronous: { $0.create(Into<Account>()).email = "d@x" })
        #expect(FileManager.default.fileExists(atPath: SQLiteStore.defaultFileURL.path))
    }

    @Test func usingAClosedStoreThrows() throws {
        let directory = try TemporaryDirectory()
        let store = SQLiteStore(fileURL: directory.file())
        #expect(throws: StorageError.notOpen(store: store.storeDescription)) { try store.read { _ in 0 } }
    }
}
