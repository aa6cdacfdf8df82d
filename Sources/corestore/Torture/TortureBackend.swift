import ArgumentParser
import CoreStore
import CoreStoreLevelDB
import CoreStoreLMDB
import CoreStoreSQLite
import Foundation

/// The durable stores the torture tests kill processes on.
enum TortureBackend: String, CaseIterable, ExpressibleByArgument {
    case sqlite, lmdb, leveldb

    /// The store's file (SQLite) or directory (LMDB, LevelDB) inside a run's directory.
    func storeURL(in directory: URL) -> URL {
        switch self {
        case .sqlite: directory.appendingPathComponent("store.sqlite", isDirectory: false)
        case .lmdb: directory.appendingPathComponent("store.lmdb", isDirectory: true)
        case .leveldb: directory.appendingPathComponent("store.leveldb", isDirectory: true)
        }
    }

    /// A store at `url` that migrates V1 → V2 as `migration` does (`nil`: no custom mapping).
    func makeStore(at url: URL, migration: TortureMigration?) -> any LocalStorage {
        let providers = migration?.mappingProviders ?? []
        switch self {
        case .sqlite: return SQLiteStore(fileURL: url, migrationMappingProviders: providers)
        case .lmdb: return LMDBStore(fileURL: url, migrationMappingProviders: providers)
        case .leveldb: return LevelDBStore(fileURL: url, migrationMappingProviders: providers)
        }
    }

    /// A store at `url` without migrations, committing with `durability`; an LMDB store
    /// `verifying` reads every page before opening (`LMDBStore(verifiesOnOpen:)`).
    func makeStore(at url: URL, durability: SQLiteStore.Durability, verifying: Bool = false) -> any LocalStorage {
        switch self {
        case .sqlite: return SQLiteStore(fileURL: url, durability: durability)
        case .lmdb: return LMDBStore(fileURL: url, durability: durability, verifiesOnOpen: verifying)
        case .leveldb: return LevelDBStore(fileURL: url, durability: durability)
        }
    }
}

/// The commit durability a torture run asks of its store.
enum TortureDurability: String, CaseIterable, ExpressibleByArgument {
    case full, normal

    var value: SQLiteStore.Durability {
        switch self {
        case .full: .full
        case .normal: .normal
        }
    }
}
