import Foundation
import CoreStoreStorage
import CoreStoreInMemory
import CoreStoreConformance
import CoreStoreSQLite
import CoreStoreKeyValue
import CoreStoreLMDB
import CoreStoreLevelDB
import CoreStorePostgres

/// A directory of its own per factory, removed by `cleanUp()`.
public struct FactoryDirectory: Sendable {
    /// The directory.
    public let url = FileManager.default.temporaryDirectory.appendingPathComponent("corestore-conformance-\(UUID().uuidString)", isDirectory: true)

    /// A new path inside the directory, with `pathExtension`.
    public func newPath(_ pathExtension: String) throws -> URL {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.appendingPathComponent("\(UUID().uuidString).\(pathExtension)")
    }

    /// Removes the directory and everything in it.
    public func remove() { try? FileManager.default.removeItem(at: url) }
}

/// `reopen` was handed a store another factory made.
public struct UnexpectedStore: Error {
    /// The error.
    public init() {}
}

/// Stores for the conformance suite and the CLI: `InMemoryStore`.
public struct InMemoryFactory: StorageFactory {
    public let name = "InMemoryStore"
    /// A factory of in-memory stores.
    public init() {}
    public func makeStorage(configuration: String?) throws -> any StorageInterface { InMemoryStore(configuration: configuration) }
    public func reopen(_ storage: any StorageInterface) throws -> any StorageInterface { throw UnexpectedStore() }
}

/// Stores for the conformance suite and the CLI: `SQLiteStore` files.
public struct SQLiteFactory: StorageFactory {
    public let durability: SQLiteStore.Durability
    public let journalMode: SQLiteStore.JournalMode
    let directory = FactoryDirectory()
    public var name: String { "SQLiteStore(\(durability), \(journalMode))" }
    /// A factory of SQLite files in a temporary directory of its own.
    public init(durability: SQLiteStore.Durability = .full, journalMode: SQLiteStore.JournalMode = .wal) {
        self.durability = durability
        self.journalMode = journalMode
    }
    public func makeStorage(configuration: String?) throws -> any StorageInterface {
        SQLiteStore(fileURL: try directory.newPath("sqlite"), configuration: configuration, durability: durability, journalMode: journalMode)
    }
    public func reopen(_ storage: any StorageInterface) throws -> any StorageInterface {
        guard let store = storage as? SQLiteStore else { throw UnexpectedStore() }
        return SQLiteStore(fileURL: store.fileURL, configuration: store.configuration, durability: durability, journalMode: journalMode)
    }
    /// A new `SQLiteStore` over the file of `storage` with the given providers and options.
    public func reopen(
        _ storage: any StorageInterface, migrationMappingProviders: [any SchemaMappingProvider], localStorageOptions: LocalStorageOptions
    ) throws -> any StorageInterface {
        guard let store = storage as? SQLiteStore else { throw UnexpectedStore() }
        return SQLiteStore(fileURL: store.fileURL, configuration: store.configuration, migrationMappingProviders: migrationMappingProviders,
                           localStorageOptions: localStorageOptions, durability: durability, journalMode: journalMode)
    }
    public func cleanUp() { directory.remove() }
}

/// Stores for the conformance suite and the CLI: `KeyValueStorage` over `MemoryKeyValueStore`.
public struct MemoryKeyValueFactory: StorageFactory {
    public let name = "KeyValueStorage<MemoryKeyValueStore>"
    /// A factory of key-value storages over in-memory engines.
    public init() {}
    public func makeStorage(configuration: String?) throws -> any StorageInterface {
        KeyValueStorage(engine: MemoryKeyValueStore(), configuration: configuration)
    }
    /// The same in-memory engine under a new storage instance (it keeps its bytes when closed).
    public func reopen(_ storage: any StorageInterface) throws -> any StorageInterface {
        guard let store = storage as? KeyValueStorage<MemoryKeyValueStore> else { throw UnexpectedStore() }
        return KeyValueStorage(engine: store.engine, configuration: store.configuration)
    }
}

/// Stores for the conformance suite and the CLI: `LMDBStore` environments.
public struct LMDBFactory: StorageFactory {
    public let durability: CommitDurability
    let directory = FactoryDirectory()
    public var name: String { "LMDBStore(\(durability))" }
    /// A factory of stores in a temporary directory of its own.
    public init(durability: CommitDurability = .full) {
        self.durability = durability
    }
    public func makeStorage(configuration: String?) throws -> any StorageInterface {
        LMDBStore(fileURL: try directory.newPath("lmdb"), configuration: configuration, durability: durability)
    }
    public func reopen(_ storage: any StorageInterface) throws -> any StorageInterface {
        guard let store = storage as? LMDBStore else { throw UnexpectedStore() }
        return LMDBStore(fileURL: store.fileURL, configuration: store.configuration, durability: durability)
    }
    /// A new `LMDBStore` over the environment of `storage` with the given providers and options.
    public func reopen(
        _ storage: any StorageInterface, migrationMappingProviders: [any SchemaMappingProvider], localStorageOptions: LocalStorageOptions
    ) throws -> any StorageInterface {
        guard let store = storage as? LMDBStore else { throw UnexpectedStore() }
        return LMDBStore(fileURL: store.fileURL, configuration: store.configuration, migrationMappingProviders: migrationMappingProviders,
                         localStorageOptions: localStorageOptions, durability: durability)
    }
    public func cleanUp() { directory.remove() }
}

/// Stores for the conformance suite and the CLI: `LevelDBStore` databases.
public struct LevelDBFactory: StorageFactory {
    public let durability: CommitDurability
    let directory = FactoryDirectory()
    public var name: String { "LevelDBStore(\(durability))" }
    /// A factory of stores in a temporary directory of its own.
    public init(durability: CommitDurability = .full) {
        self.durability = durability
    }
    public func makeStorage(configuration: String?) throws -> any StorageInterface {
        LevelDBStore(fileURL: try directory.newPath("leveldb"), configuration: configuration, durability: durability)
    }
    public func reopen(_ storage: any StorageInterface) throws -> any StorageInterface {
        guard let store = storage as? LevelDBStore else { throw UnexpectedStore() }
        return LevelDBStore(fileURL: store.fileURL, configuration: store.configuration, durability: durability)
    }
    /// A new `LevelDBStore` over the database of `storage` with the given providers and options.
    public func reopen(
        _ storage: any StorageInterface, migrationMappingProviders: [any SchemaMappingProvider], localStorageOptions: LocalStorageOptions
    ) throws -> any StorageInterface {
        guard let store = storage as? LevelDBStore else { throw UnexpectedStore() }
        return LevelDBStore(fileURL: store.fileURL, configuration: store.configuration, migrationMappingProviders: migrationMappingProviders,
                            localStorageOptions: localStorageOptions, durability: durability)
    }
    public func cleanUp() { directory.remove() }
}


/// Stores for the conformance suite and the CLI: `PostgresStore`s in one database, each in a
/// schema of its own (`conformance_<factory>_<n>`), dropped by ``cleanUp()``.
public struct PostgresFactory: StorageFactory {
    /// The database (a libpq URL or connection string).
    public let url: String
    private let prefix = "conformance_\(UUID().uuidString.prefix(8).lowercased())_"
    private let schemas = SchemaNames()
    public var name: String { "PostgresStore" }

    /// A factory of stores in the database at `url`.
    public init(url: String) {
        self.url = url
    }

    public func makeStorage(configuration: String?) throws -> any StorageInterface {
        PostgresStore(url: url, schemaName: schemas.next(prefix: prefix), configuration: configuration)
    }

    public func reopen(_ storage: any StorageInterface) throws -> any StorageInterface {
        guard let store = storage as? PostgresStore else { throw UnexpectedStore() }
        return PostgresStore(url: url, schemaName: store.schemaName, configuration: store.configuration)
    }

    /// A new `PostgresStore` over the schema of `storage` with the given providers and options.
    public func reopen(
        _ storage: any StorageInterface, migrationMappingProviders: [any SchemaMappingProvider], localStorageOptions: LocalStorageOptions
    ) throws -> any StorageInterface {
        guard let store = storage as? PostgresStore else { throw UnexpectedStore() }
        return PostgresStore(url: url, schemaName: store.schemaName, configuration: store.configuration,
                             migrationMappingProviders: migrationMappingProviders, localStorageOptions: localStorageOptions)
    }

    /// Drops the schema of every store this factory made since the last clean-up.
    public func cleanUp() {
        for schemaName in schemas.takeAll() {
            try? PostgresStore(url: url, schemaName: schemaName).erase()
        }
    }

    /// The schemas made since the last clean-up, counted across threads.
    private final class SchemaNames: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        private var made: [String] = []
        func next(prefix: String) -> String {
            lock.withLock {
                count += 1
                made.append(prefix + String(count))
                return made[made.count - 1]
            }
        }
        func takeAll() -> [String] {
            lock.withLock {
                defer { made = [] }
                return made
            }
        }
    }
}
