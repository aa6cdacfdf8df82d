import ArgumentParser
import CoreStore
import CoreStoreLevelDB
import CoreStoreLMDB
import CoreStoreSQLite
import Foundation

/// The file-based backends the store tools (`inspect`, `dump`, …) open, told apart by their files.
enum StoreBackend: String, CaseIterable, ExpressibleByArgument {
    case sqlite, lmdb, leveldb

    /// The first 16 bytes of every SQLite 3 database file.
    static let sqliteHeader = Array("SQLite format 3\0".utf8)

    /// The backend whose files are at `url`: a SQLite database file, or a directory holding
    /// LMDB's `data.mdb` or LevelDB's `CURRENT`. Throws ``StoreToolError`` for anything else.
    static func detect(at url: URL) throws -> StoreBackend {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw StoreToolError("no store at \(url.path): there is no such file or directory")
        }
        if isDirectory.boolValue {
            let names = Set((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? [])
            if names.contains("data.mdb") { return .lmdb }
            if names.contains("CURRENT") { return .leveldb }
            throw StoreToolError("\(url.path) is a directory, but not an LMDB store (no data.mdb) or a LevelDB store (no CURRENT)")
        }
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw StoreToolError("\(url.path) cannot be read (permission denied?)")
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: sqliteHeader.count)) ?? Data()
        guard Array(header) == sqliteHeader else {
            throw StoreToolError("\(url.path) is not a store: it is a file, but not a SQLite database, and LMDB and LevelDB stores are directories")
        }
        return .sqlite
    }

    /// The backend a path's extension names: `.sqlite`, `.sqlite3`, `.db` → SQLite, `.lmdb` →
    /// LMDB, `.leveldb`, `.ldb` → LevelDB.
    static func named(byExtensionOf url: URL) -> StoreBackend? {
        switch url.pathExtension.lowercased() {
        case "sqlite", "sqlite3", "db": .sqlite
        case "lmdb": .lmdb
        case "leveldb", "ldb": .leveldb
        default: nil
        }
    }

    /// A store object for the files at `url` (opened later, by ``OpenedStore``); `verifying`
    /// has an LMDB store read every page before it opens (`LMDBStore(verifiesOnOpen:)`).
    func makeStore(at url: URL, verifying: Bool = false) -> any LocalStorage {
        switch self {
        case .sqlite: SQLiteStore(fileURL: url)
        case .lmdb: LMDBStore(fileURL: url, verifiesOnOpen: verifying)
        case .leveldb: LevelDBStore(fileURL: url)
        }
    }

    /// What the files say about durability. Only SQLite keeps a setting in its file (the WAL
    /// journal mode); LMDB and LevelDB take theirs from the application each time it opens them.
    func durabilityNote(at url: URL) -> String {
        switch self {
        case .sqlite:
            // Bytes 18 and 19 of the header are 2 in WAL mode, 1 with a rollback journal.
            let header = (try? FileHandle(forReadingFrom: url).read(upToCount: 20)) ?? Data()
            let wal = header.count == 20 && header[18] == 2 && header[19] == 2
            return (wal ? "WAL journal" : "rollback journal") + "; synchronous level chosen by the app when it opens the store"
        case .lmdb, .leveldb:
            return "chosen by the app when it opens the store (not kept in the files)"
        }
    }
}

/// The files of a store and their total size.
struct StoreFiles {
    /// Each file with its size in bytes, by path relative to the store (`""` for a one-file store).
    let sizes: [(name: String, bytes: Int64)]

    /// The total size in bytes.
    var totalBytes: Int64 { sizes.reduce(0) { $0 + $1.bytes } }

    /// The store at `url` and, for SQLite, its `-wal` and `-shm` companions.
    init(at url: URL, backend: StoreBackend) {
        let fm = FileManager.default
        func size(_ path: String) -> Int64? {
            (try? fm.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
        }
        var sizes: [(String, Int64)] = []
        switch backend {
        case .sqlite:
            for suffix in [""] + SQLiteStore.sideFileSuffixes {
                if let bytes = size(url.path + suffix) { sizes.append((url.lastPathComponent + suffix, bytes)) }
            }
        case .lmdb, .leveldb:
            for name in ((try? fm.contentsOfDirectory(atPath: url.path)) ?? []).sorted() {
                if let bytes = size(url.appendingPathComponent(name).path) { sizes.append((name, bytes)) }
            }
        }
        self.sizes = sizes
    }
}
