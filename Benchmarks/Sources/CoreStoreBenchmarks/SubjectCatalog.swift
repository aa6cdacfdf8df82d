import CoreStore
import CoreStoreLevelDB
import CoreStoreLMDB
import CoreStoreSQLite
import Foundation

/// A storage engine the benchmark compares on.
enum Backend: String, CaseIterable, Sendable, Codable {
    case sqlite, lmdb, leveldb, memory

    /// The subjects measured on this backend: CoreStore first, then the baselines.
    var subjects: [SubjectKind] {
        switch self {
        case .sqlite:
            [
                SubjectKind(role: .coreStore) { directory in
                    let url = directory.appendingPathComponent("corestore.sqlite")
                    return try CoreStoreSubject(storage: SQLiteStore(fileURL: url, durability: .normal)) { providers, options in
                        SQLiteStore(fileURL: url, migrationMappingProviders: providers, localStorageOptions: options, durability: .normal)
                    }
                },
                SubjectKind(role: .raw) { try RawSQLiteSubject(directory: $0) },
                SubjectKind(role: .grdb) { try GRDBSubject(directory: $0) },
            ]
        case .lmdb:
            [
                SubjectKind(role: .coreStore) { directory in
                    let url = directory.appendingPathComponent("corestore-lmdb")
                    return try CoreStoreSubject(storage: LMDBStore(fileURL: url, durability: .normal)) { providers, options in
                        LMDBStore(fileURL: url, migrationMappingProviders: providers, localStorageOptions: options, durability: .normal)
                    }
                },
                SubjectKind(role: .raw) { try RawLMDBSubject(directory: $0) },
            ]
        case .leveldb:
            [
                SubjectKind(role: .coreStore) { directory in
                    let url = directory.appendingPathComponent("corestore-leveldb")
                    return try CoreStoreSubject(storage: LevelDBStore(fileURL: url, durability: .normal)) { providers, options in
                        LevelDBStore(fileURL: url, migrationMappingProviders: providers, localStorageOptions: options, durability: .normal)
                    }
                },
                SubjectKind(role: .raw) { try RawLevelDBSubject(directory: $0) },
            ]
        case .memory:
            // No engine beneath: the numbers show the framework's own cost.
            [SubjectKind(role: .coreStore) { _ in try CoreStoreSubject(storage: InMemoryStore()) }]
        }
    }

    /// The name in the table's heading.
    var title: String {
        switch self {
        case .sqlite: "SQLite (WAL, synchronous=NORMAL)"
        case .lmdb: "LMDB (MDB_NOMETASYNC)"
        case .leveldb: "LevelDB (sync = false)"
        case .memory: "InMemoryStore (no engine beneath)"
        }
    }
}

/// One subject of a backend and how to make a fresh one in an empty directory.
struct SubjectKind: Sendable {
    /// What the subject stands for in the comparison.
    enum Role: String, Sendable, Codable {
        case coreStore = "CoreStore"
        case raw = "raw"
        case grdb = "GRDB"
    }

    let role: Role
    let make: @Sendable (URL) throws -> any BenchmarkSubject
}
