import Foundation
import Testing
@testable import CoreStore
import CoreStoreSQLite
import CoreStoreKeyValue
import CoreStoreLMDB
import CoreStoreLevelDB

/// The storage engines the API tests run against: `@Test(arguments: StoreKind.allCases)`.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case inMemory, sqlite, keyValue, lmdb, leveldb

    var testDescription: String {
        switch self {
        case .inMemory: "InMemoryStore"
        case .sqlite: "SQLiteStore"
        case .keyValue: "KeyValueStorage<MemoryKeyValueStore>"
        case .lmdb: "LMDBStore"
        case .leveldb: "LevelDBStore"
        }
    }

    /// A new, empty store of this kind; a SQLite store gets a file of its own in
    /// ``TestStoreFiles/directory``.
    func makeStore(configuration: String? = nil) throws -> any StorageInterface {
        switch self {
        case .inMemory:
            InMemoryStore(configuration: configuration)
        case .sqlite:
            SQLiteStore(fileURL: try TestStoreFiles.newFile(), configuration: configuration)
        case .keyValue:
            KeyValueStorage(engine: MemoryKeyValueStore(), configuration: configuration)
        case .lmdb:
            LMDBStore(fileURL: try TestStoreFiles.newFile(extension: "lmdb"), configuration: configuration)
        case .leveldb:
            LevelDBStore(fileURL: try TestStoreFiles.newFile(extension: "leveldb"), configuration: configuration)
        }
    }
}

/// Where the SQLite files of a test run live: one directory per test process,
/// `<temporary directory>/corestore-tests-<pid>`.
///
/// The directory is emptied when the process first needs it (a previous process with the same
/// id may have crashed and left it behind), and removed when the process exits. Directories of
/// earlier test processes that are no longer running are removed at the same time, so a crash
/// leaves nothing behind for longer than the next run.
enum TestStoreFiles {
    static let prefix = "corestore-tests-"

    static let directory: URL = {
        let fileManager = FileManager.default
        let base = fileManager.temporaryDirectory
        let own = ProcessInfo.processInfo.processIdentifier
        for name in (try? fileManager.contentsOfDirectory(atPath: base.path)) ?? [] where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count)) else { continue }
            if pid == own || !isRunning(pid) {
                try? fileManager.removeItem(at: base.appendingPathComponent(name, isDirectory: true))
            }
        }
        let directory = base.appendingPathComponent("\(prefix)\(own)", isDirectory: true)
        try? fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: TestStoreFiles.directory) }
        return directory
    }()

    /// A path in ``directory`` that no other store uses.
    static func newFile(extension pathExtension: String = "sqlite") throws -> URL {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("\(UUID().uuidString).\(pathExtension)", isDirectory: false)
    }

    /// Whether a process with this id exists (one of another user counts as running).
    private static func isRunning(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno != ESRCH
    }
}

@Suite("Test store kinds")
struct StoreKindTests {
    @Test func eachKindMakesItsOwnStoreWithTheConfigurationAsked() throws {
        #expect(try StoreKind.inMemory.makeStore() is InMemoryStore)
        #expect(try StoreKind.sqlite.makeStore() is SQLiteStore)
        for kind in StoreKind.allCases {
            #expect(try kind.makeStore(configuration: "Local").configuration == "Local")
            #expect(try kind.makeStore().configuration == nil)
        }
    }

    @Test func sqliteStoresGetAFileOfTheirOwnInTheProcessDirectory() throws {
        let first = try #require(try StoreKind.sqlite.makeStore() as? SQLiteStore)
        let second = try #require(try StoreKind.sqlite.makeStore() as? SQLiteStore)
        #expect(first.fileURL != second.fileURL)
        #expect(first.fileURL.deletingLastPathComponent().path == TestStoreFiles.directory.path)
        #expect(TestStoreFiles.directory.lastPathComponent == "corestore-tests-\(ProcessInfo.processInfo.processIdentifier)")
        let stack = DataStack(makeSchema())
        try stack.addStorageAndWait(first)
        try insertPeople(stack, [("Ann", 31)])
        #expect(FileManager.default.fileExists(atPath: first.fileURL.path))
    }
}
