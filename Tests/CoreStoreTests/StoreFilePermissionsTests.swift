import Foundation
import Testing
@testable import CoreStore
import CoreStoreSQLite
import CoreStoreLMDB
import CoreStoreLevelDB

/// New stores are readable by their owner only, whatever the umask: directories 0700, files
/// 0600; existing files keep the permissions someone gave them.
@Suite("Store file permissions")
struct StoreFilePermissionsTests {
    static func permissions(_ url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    /// A directory that does not exist yet, inside the test directory.
    static func newDirectory() throws -> URL {
        try TestStoreFiles.newFile(extension: "dir").appendingPathComponent("nested", isDirectory: true)
    }

    @Test func aNewSQLiteStoreIsOwnerOnly() throws {
        let directory = try Self.newDirectory()
        let file = directory.appendingPathComponent("store.sqlite")
        let stack = DataStack(makeSchema())
        try stack.addStorageAndWait(SQLiteStore(fileURL: file))
        try insertPeople(stack, [("Ann", 30)])
        #expect(try Self.permissions(directory) == 0o700)
        #expect(try Self.permissions(file) == 0o600)
        let wal = URL(fileURLWithPath: file.path + "-wal")
        #expect(FileManager.default.fileExists(atPath: wal.path))
        #expect(try Self.permissions(wal) == 0o600)
        let counters = URL(fileURLWithPath: file.path + "-counters")
        #expect(try Self.permissions(counters) == 0o600)
        #expect(try stack.fetchCount(From<Person>()) == 1)
    }

    @Test func anExistingSQLiteStoreKeepsItsPermissions() throws {
        let file = try TestStoreFiles.newFile()
        do {
            let stack = DataStack(makeSchema())
            try stack.addStorageAndWait(SQLiteStore(fileURL: file))
            try insertPeople(stack, [("Ann", 30)])
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: file.path)
        try FileManager.default.removeItem(atPath: file.path + "-counters")
        let stack = DataStack(makeSchema())
        try stack.addStorageAndWait(SQLiteStore(fileURL: file))
        try insertPeople(stack, [("Bob", 40)])
        #expect(try Self.permissions(file) == 0o640)
        #expect(try Self.permissions(URL(fileURLWithPath: file.path + "-counters")) == 0o640, "a new counters file takes the database's permissions")
        #expect(try stack.fetchCount(From<Person>()) == 2)
    }

    @Test func aNewLMDBStoreIsOwnerOnly() throws {
        let directory = try Self.newDirectory()
        let stack = DataStack(makeSchema())
        try stack.addStorageAndWait(LMDBStore(fileURL: directory))
        try insertPeople(stack, [("Ann", 30)])
        #expect(try Self.permissions(directory) == 0o700)
        for name in ["data.mdb", "lock.mdb"] {
            #expect(try Self.permissions(directory.appendingPathComponent(name)) == 0o600, "\(name)")
        }
    }

    @Test func aNewLevelDBStoreIsInAnOwnerOnlyDirectory() throws {
        let directory = try Self.newDirectory()
        let stack = DataStack(makeSchema())
        try stack.addStorageAndWait(LevelDBStore(fileURL: directory))
        try insertPeople(stack, [("Ann", 30)])
        #expect(try Self.permissions(directory) == 0o700)
    }
}

extension StoreFilePermissionsTests {
    /// The file is created before SQLite writes anything into it: a process that dies in
    /// between leaves an empty file, which must open as a new store.
    @Test func anEmptyFileLeftBeforeTheFirstCommitOpensAsANewStore() throws {
        let file = try TestStoreFiles.newFile()
        #expect(FileManager.default.createFile(atPath: file.path, contents: Data()))
        let stack = DataStack(makeSchema())
        try stack.addStorageAndWait(SQLiteStore(fileURL: file))
        try insertPeople(stack, [("Ann", 30)])
        #expect(try stack.fetchCount(From<Person>()) == 1)
    }
}
