import Foundation
import Testing
@testable import CoreStore
import CoreStoreSQLite
import CoreStoreLMDB
import CoreStoreLevelDB

/// The file-backed stores follow the same rules when a `DataStack` opens them: data survives,
/// another model is refused without touching the files (or recreated when asked), and one
/// file belongs to one stack at a time.
@Suite("Local store lifecycle")
struct LocalStoreLifecycleTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, lmdb, leveldb
        var testDescription: String { rawValue }

        func store(_ url: URL, options: LocalStorageOptions = .none) -> any LocalStorage {
            switch self {
            case .sqlite: SQLiteStore(fileURL: url, localStorageOptions: options)
            case .lmdb: LMDBStore(fileURL: url, localStorageOptions: options)
            case .leveldb: LevelDBStore(fileURL: url, localStorageOptions: options)
            }
        }
    }

    static let otherSchema = CoreStoreSchema(modelVersion: "Other", entities: [Entity<MyPersonEntity>("Person")])

    func stack(_ kind: Kind, _ url: URL, schema: CoreStoreSchema = makeSchema(), options: LocalStorageOptions = .none) throws -> DataStack {
        let stack = DataStack(schema)
        try stack.addStorageAndWait(kind.store(url, options: options))
        return stack
    }

    /// Every file under `url` (a file or a directory) with its bytes.
    func contents(_ url: URL) throws -> [String: Data] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return [:] }
        guard isDirectory.boolValue else { return [url.lastPathComponent: try Data(contentsOf: url)] }
        var result: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: url.path) where name != "lock.mdb" && name != "LOCK" && name != "LOG" {
            result[name] = try Data(contentsOf: url.appendingPathComponent(name))
        }
        return result
    }

    @Test(arguments: Kind.allCases)
    func dataSurvivesReopening(_ kind: Kind) throws {
        let url = try TestStoreFiles.newFile(extension: kind.rawValue)
        do {
            let first = try stack(kind, url)
            try insertPeople(first, [("Ann", 30), ("Bob", 25)])
            try first.perform(synchronous: { transaction in
                let dog = transaction.create(Into<Dog>())
                dog.name = "Rex"
                dog.master = try transaction.fetchOne(From<Person>().where(\.$name == "Ann"))
            })
        }
        let reopened = try stack(kind, url)
        #expect(try reopened.fetchAll(From<Person>().orderBy(.ascending(\.$name))).map(\.name) == ["Ann", "Bob"])
        #expect(try reopened.fetchOne(From<Dog>())?.master?.name == "Ann")
        try insertPeople(reopened, [("Cid", 40)])
        #expect(try reopened.fetchCount(From<Person>()) == 3, "keys keep counting after a reopen")
    }

    @Test(arguments: Kind.allCases)
    func anotherModelIsRefusedAndLeftAlone(_ kind: Kind) throws {
        let url = try TestStoreFiles.newFile(extension: kind.rawValue)
        do { try insertPeople(try stack(kind, url), [("Ann", 30)]) }
        let before = try contents(url)
        #expect {
            _ = try stack(kind, url, schema: Self.otherSchema)
        } throws: { error in
            guard case CoreStoreError.schemaMismatch = error else { return false }
            return true
        }
        if kind != .leveldb {
            #expect(try contents(url) == before)
        } // LevelDB writes a new log and manifest whenever it opens; its data is checked below.
        #expect(try stack(kind, url).fetchOne(From<Person>())?.name == "Ann")
    }

    @Test(arguments: Kind.allCases)
    func recreateOnMismatchStartsAfresh(_ kind: Kind) throws {
        let url = try TestStoreFiles.newFile(extension: kind.rawValue)
        do { try insertPeople(try stack(kind, url), [("Ann", 30)]) }
        let recreated = try stack(kind, url, schema: Self.otherSchema, options: .recreateStoreOnModelMismatch)
        #expect(try recreated.fetchCount(From<MyPersonEntity>()) == 0)
        try recreated.perform(synchronous: { $0.create(Into<MyPersonEntity>()).name = "New" })
        #expect(try recreated.fetchOne(From<MyPersonEntity>())?.name == "New")
    }

    /// LMDB and LevelDB files belong to one stack at a time; SQLite shares (`SharedStoreTests`).
    @Test(arguments: [Kind.lmdb, .leveldb])
    func oneFileBelongsToOneStackAtATime(_ kind: Kind) throws {
        let url = try TestStoreFiles.newFile(extension: kind.rawValue)
        do {
            let first = try stack(kind, url)
            try insertPeople(first, [("Ann", 30)])
            #expect {
                _ = try stack(kind, url)
            } throws: { error in
                guard case CoreStoreError.storageAlreadyAdded = error else { return false }
                return true
            }
        }
        #expect(try stack(kind, url).fetchCount(From<Person>()) == 1)
    }
}
