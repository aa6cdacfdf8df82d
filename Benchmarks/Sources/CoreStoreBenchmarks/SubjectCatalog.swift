import CoreStore
import CoreStoreLevelDB
import CoreStoreLMDB
import CoreStorePostgres
import CoreStoreSQLite
import Foundation

/// A storage engine the benchmark compares on.
enum Backend: String, CaseIterable, Sendable, Codable {
    case sqlite, lmdb, leveldb, memory, postgres

    /// The backends run when none is named: every one, PostgreSQL only when a server is given.
    static func defaults(postgresURL: String?) -> [Backend] {
        allCases.filter { $0 != .postgres || postgresURL != nil }
    }

    /// Whether the backend's store is a separate server process (its background work outlives
    /// the workloads that caused it).
    var isServer: Bool { self == .postgres }

    /// The roles of the backend's subjects, in the table's order (they do not depend on the
    /// server).
    var roles: [SubjectKind.Role] { subjects(postgresURL: nil).map(\.role) }

    /// The subjects measured on this backend: CoreStore first, then the baselines.
    /// `postgresURL` is the server of the `postgres` backend (its subjects throw without one).
    func subjects(postgresURL: String?) -> [SubjectKind] {
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
        case .postgres:
            // Each run in a schema of its own, dropped afterwards.
            [
                SubjectKind(role: .coreStore, make: { directory in
                    let url = try PostgresBenchServer.url(postgresURL)
                    let schemaName = PostgresBenchServer.schemaName(for: directory)
                    return try CoreStoreSubject(storage: PostgresStore(url: url, schemaName: schemaName)) { providers, options in
                        PostgresStore(url: url, schemaName: schemaName, migrationMappingProviders: providers, localStorageOptions: options)
                    }
                }, cleanUp: { directory in
                    let url = try PostgresBenchServer.url(postgresURL)
                    try PostgresStore(url: url, schemaName: PostgresBenchServer.schemaName(for: directory)).erase()
                }),
                SubjectKind(role: .raw) { directory in
                    try RawPostgresSubject(url: PostgresBenchServer.url(postgresURL), schemaName: PostgresBenchServer.schemaName(for: directory))
                },
            ]
        }
    }

    /// The name in the table's heading.
    var title: String {
        switch self {
        case .sqlite: "SQLite (WAL, synchronous=NORMAL)"
        case .lmdb: "LMDB (MDB_NOMETASYNC)"
        case .leveldb: "LevelDB (sync = false)"
        case .memory: "InMemoryStore (no engine beneath)"
        case .postgres: "PostgreSQL (libpq to a server, synchronous_commit=on)"
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
    /// Run after the subject is released, with the same directory: removes what the subject
    /// keeps outside it (a PostgreSQL schema); `nil` when there is nothing.
    var cleanUp: (@Sendable (URL) throws -> Void)? = nil
}
